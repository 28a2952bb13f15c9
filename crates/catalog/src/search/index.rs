//! The inverted index and its build: sorted word and word-pair tables with postings and idf,
//! name-word counts and compact names, from the name, label and description of each [`Doc`].
//!
//! Documents are numbered in id order (ties rank by id, so a search that walks the documents
//! in that order knows a later one loses every tie), and every posting list is cut into blocks
//! of [`BLOCK`] documents with the largest weight of each: what a search needs to skip a block
//! that cannot reach the top (`rank.rs`).

use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::text::{compact, index_words, words};
use super::thesaurus::is_stopword;
use super::weights::{B, DESCRIPTION, K1, LABEL, MIN_PREFIX, NAME, idf};

/// Bytes of a label or description that are indexed: their start, cut between characters. The
/// gateway's text can be of any size (an MCP server writes it); past this, more words would not
/// change what a tool is found for, and the index of a catalog with a 10 MB description took
/// seconds to build, past the sandbox's budget for a search.
pub const MAX_INDEXED_BYTES: usize = 16 << 10;

/// The start of `text` that is indexed: at most [`MAX_INDEXED_BYTES`], cut between characters.
fn indexed(text: &str) -> &str {
  &text[..text.floor_char_boundary(MAX_INDEXED_BYTES)]
}

/// What the index needs to know of one catalog entry.
pub struct Doc<'a> {
  /// The entry's id, unique in the index (a catalog's are): equal scores rank by it.
  pub id: &'a str,
  pub name: &'a str,
  pub label: Option<&'a str>,
  pub description: &'a str,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Field {
  Name,
  Label,
  Description,
}

#[derive(Clone, Copy)]
pub(super) struct Posting {
  pub(super) doc: u32,
  /// Weight of the best field the word is in (descriptions length-normalised).
  pub(super) weight: f32,
  pub(super) field: Field,
}

/// Documents per block: `doc >> BLOCK_BITS` is a document's block.
pub(super) const BLOCK_BITS: u32 = 6;
pub(super) const BLOCK: usize = 1 << BLOCK_BITS;

/// The postings of one list that fall in one block, and bounds on what they can add.
#[derive(Clone, Copy)]
pub(super) struct Block {
  pub(super) block: u32,
  /// Where they start in the list (they end where the next block's start).
  pub(super) start: u32,
  /// The largest weight among them, and among those in a name or label (all a minor word may
  /// hit); `titled` is 0 when there are none (name and label weights are positive).
  pub(super) max: f32,
  pub(super) titled: f32,
  /// Whether one of them is in a name.
  pub(super) named: bool,
  /// The documents of the block they are of, and those whose posting is in a name (bit `doc %
  /// BLOCK`): which tool has which word, without reading the postings (0 in a list's `whole`).
  pub(super) docs: u64,
  pub(super) names: u64,
}

/// A sorted word list with postings: exact lookups and prefix ranges by binary search, without
/// a tree's pointer chasing.
#[derive(Default)]
pub(super) struct Table {
  pub(super) terms: Vec<Box<str>>,
  pub(super) postings: Vec<Vec<Posting>>,
  /// Each list's blocks, in the order of `postings`.
  pub(super) blocks: Vec<Vec<Block>>,
  /// Each list's bounds over all its blocks (`block` and `start` unused): what a search needs to
  /// tell the lists that can still lift a tool into the top from those that cannot.
  pub(super) whole: Vec<Block>,
  pub(super) idf: Vec<f32>,
}

impl Table {
  /// Index of the first term `>= word`.
  pub(super) fn lower_bound(&self, word: &str) -> usize {
    self.terms.partition_point(|t| &**t < word)
  }

  /// Terms `word` reaches: itself and, when `prefix` and long enough, the words it begins.
  pub(super) fn reached<'q>(
    &'q self,
    word: &'q str,
    prefix: bool,
  ) -> impl Iterator<Item = usize> + 'q {
    let prefix = prefix && word.len() >= MIN_PREFIX;
    (self.lower_bound(word)..self.terms.len()).take_while(move |&t| {
      let term = &*self.terms[t];
      term == word || (prefix && term.starts_with(word))
    })
  }

  pub(super) fn get(&self, word: &str) -> Option<usize> {
    let i = self.lower_bound(word);
    (self.terms.get(i).map(|t| &**t) == Some(word)).then_some(i)
  }
}

/// FNV-1a: the index builder hashes a few hundred thousand short words, where SipHash's
/// flooding resistance buys nothing (the catalog is not adversarial) and costs most of the time.
#[derive(Default)]
pub(super) struct Fnv(u64);

impl Hasher for Fnv {
  fn finish(&self) -> u64 {
    self.0
  }

  fn write(&mut self, bytes: &[u8]) {
    let mut hash = if self.0 == 0 {
      0xcbf2_9ce4_8422_2325
    } else {
      self.0
    };
    for &b in bytes {
      hash = (hash ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    self.0 = hash;
  }
}

pub(super) type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// Inverted index over a fixed list of documents (the guest-visible catalog entries).
pub struct SearchIndex {
  pub(super) words: Table,
  /// Adjacent word pairs (stopwords skipped), as indices into `words.terms`, sorted, with
  /// postings and idf: a query that repeats a tool's own phrasing ("search file contents") is a
  /// better match than one that scatters the same words.
  pub(super) pairs: Vec<((u32, u32), Vec<Posting>, f32)>,
  /// Each pair's blocks, in the order of `pairs`, and its bounds over all of them.
  pub(super) pair_blocks: Vec<Vec<Block>>,
  pub(super) pair_whole: Vec<Block>,
  /// Distinct words in each document's name, for name coverage.
  pub(super) name_words: Vec<u8>,
  /// The fewest name words of a document in each block, and in the index (at least 1).
  pub(super) block_name_words: Vec<u8>,
  pub(super) fewest_name_words: u8,
  /// Normalised full names (`web_search` → `websearch`) with their document, sorted, for
  /// exact-name and name-prefix matches.
  pub(super) names: Vec<(Box<str>, u32)>,
  /// The position in the caller's list of each document (documents are numbered by id).
  pub(super) external: Vec<u32>,
  pub(super) docs: usize,
  /// Documents reached by a set of terms (sorted term indices), as searches found them: a
  /// concept's rarity cap needs it, and a catalog's searches keep using the same words.
  pub(super) unions: Mutex<FnvMap<Box<[u32]>, u32>>,
}

impl SearchIndex {
  pub fn build<'a>(docs: impl IntoIterator<Item = Doc<'a>>) -> Self {
    let given: Vec<Doc<'a>> = docs.into_iter().collect();
    let mut external: Vec<u32> = (0..given.len() as u32).collect();
    external.sort_by(|&a, &b| given[a as usize].id.cmp(given[b as usize].id));
    debug_assert!(
      external
        .windows(2)
        .all(|w| given[w[0] as usize].id != given[w[1] as usize].id),
      "ids are unique"
    );
    let mut slots: Vec<Option<Doc<'a>>> = given.into_iter().map(Some).collect();
    let docs: Vec<Doc<'a>> = external
      .iter()
      .map(|&e| {
        slots[e as usize]
          .take()
          .unwrap_or_else(|| unreachable!("a permutation"))
      })
      .collect();
    let parsed: Vec<[Vec<String>; 3]> = docs
      .iter()
      .map(|doc| {
        [
          words(doc.name),
          index_words(indexed(doc.label.unwrap_or(""))),
          index_words(indexed(doc.description)),
        ]
      })
      .collect();
    let average = (parsed.iter().map(|p| p[2].len()).sum::<usize>() as f32
      / parsed.len().max(1) as f32)
      .max(1.0);

    // Words get ids in order of appearance; per-document dedup is a scan of a short list.
    let mut ids: FnvMap<&str, u32> = FnvMap::default();
    let mut lists: Vec<Vec<Posting>> = Vec::new();
    let mut stop: Vec<bool> = Vec::new();
    let mut pair_lists: FnvMap<(u32, u32), Vec<Posting>> = FnvMap::default();
    let mut name_words = Vec::with_capacity(docs.len());
    let mut names = Vec::with_capacity(docs.len());
    let mut seen: Vec<u32> = Vec::new();
    let mut seen_pairs: Vec<(u32, u32)> = Vec::new();
    for (i, (doc, fields)) in docs.iter().zip(&parsed).enumerate() {
      let length = length_class(fields[2].len());
      let norm = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * length / average));
      let weights = [
        (Field::Name, NAME),
        (Field::Label, LABEL),
        (Field::Description, DESCRIPTION * norm),
      ];
      // Best field per word and per pair: fields come best first, so the first entry wins.
      seen.clear();
      seen_pairs.clear();
      for (f, (list, (field, weight))) in fields.iter().zip(weights).enumerate() {
        let posting = Posting {
          doc: i as u32,
          weight,
          field,
        };
        let mut previous: Option<u32> = None;
        for word in list {
          let id = *ids.entry(word.as_str()).or_insert_with(|| {
            lists.push(Vec::new());
            stop.push(is_stopword(word));
            (lists.len() - 1) as u32
          });
          if !seen.contains(&id) {
            seen.push(id);
            lists[id as usize].push(posting);
          }
          if stop[id as usize] {
            continue;
          }
          if let Some(first) = previous
            && !seen_pairs.contains(&(first, id))
          {
            seen_pairs.push((first, id));
            pair_lists.entry((first, id)).or_default().push(posting);
          }
          previous = Some(id);
        }
        if f == 0 {
          name_words.push(seen.len().min(u8::MAX as usize) as u8);
        }
      }
      names.push((compact(doc.name).into_boxed_str(), i as u32));
    }
    names.sort_unstable();
    let count = docs.len();

    // Sort the words; postings are already in document order.
    let mut order: Vec<u32> = (0..lists.len() as u32).collect();
    let mut texts: Vec<&str> = vec![""; lists.len()];
    for (text, &id) in &ids {
      texts[id as usize] = text;
    }
    order.sort_unstable_by_key(|&id| texts[id as usize]);
    let mut rank = vec![0u32; lists.len()];
    for (r, &id) in order.iter().enumerate() {
      rank[id as usize] = r as u32;
    }
    let mut words = Table::default();
    for &id in &order {
      let list = std::mem::take(&mut lists[id as usize]);
      words.idf.push(idf(count, list.len()));
      words.terms.push(texts[id as usize].into());
      let list_blocks = blocks(&list);
      words.whole.push(whole(&list_blocks));
      words.blocks.push(list_blocks);
      words.postings.push(list);
    }
    let mut pairs: Vec<((u32, u32), Vec<Posting>, f32)> = pair_lists
      .into_iter()
      .map(|((a, b), list)| {
        let weight = idf(count, list.len());
        ((rank[a as usize], rank[b as usize]), list, weight)
      })
      .collect();
    pairs.sort_unstable_by_key(|p| p.0);
    let pair_blocks: Vec<Vec<Block>> = pairs.iter().map(|p| blocks(&p.1)).collect();
    let pair_whole = pair_blocks.iter().map(|b| whole(b)).collect();
    let block_name_words: Vec<u8> = name_words
      .chunks(BLOCK)
      .map(|chunk| chunk.iter().copied().min().unwrap_or(1).max(1))
      .collect();
    let fewest_name_words = block_name_words.iter().copied().min().unwrap_or(1);
    SearchIndex {
      words,
      pairs,
      pair_blocks,
      pair_whole,
      name_words,
      block_name_words,
      fewest_name_words,
      names,
      external,
      docs: count,
      unions: Mutex::new(FnvMap::default()),
    }
  }
}

/// Descriptions up to this many words weigh by their exact length; longer ones by classes.
const EXACT_LENGTH: usize = 12;

/// A description's length as its weights see it: the length itself up to [`EXACT_LENGTH`]
/// words (a word more or less in a one-line description is a real difference), then the middle
/// of its class of lengths (classes end at 15, 19, 24, 30, …, each a quarter longer than the
/// last). Tools written from one template (descriptions of 16 to 19 words) then weigh a word
/// alike, so they tie exactly, and a bound from the largest weight among them is the weight of
/// each: the searches' bounds (`rank/bounds.rs`) stay tight on such catalogs.
pub(super) fn length_class(words: usize) -> f32 {
  if words <= EXACT_LENGTH {
    return words as f32;
  }
  let (mut low, mut high) = (EXACT_LENGTH, EXACT_LENGTH + EXACT_LENGTH.div_ceil(4));
  while high < words {
    (low, high) = (high, high + high.div_ceil(4));
  }
  (low + 1 + high) as f32 / 2.0
}

/// The bounds of a whole list, from its blocks.
fn whole(blocks: &[Block]) -> Block {
  blocks.iter().fold(
    Block {
      block: 0,
      start: 0,
      max: 0.0,
      titled: 0.0,
      named: false,
      docs: 0,
      names: 0,
    },
    |all, b| Block {
      max: all.max.max(b.max),
      titled: all.titled.max(b.titled),
      named: all.named || b.named,
      // Any tool may be any block's: every bit.
      docs: u64::MAX,
      names: if all.named || b.named { u64::MAX } else { 0 },
      ..all
    },
  )
}

/// A posting list's blocks (postings are in document order).
fn blocks(list: &[Posting]) -> Vec<Block> {
  let mut out: Vec<Block> = Vec::new();
  for (i, p) in list.iter().enumerate() {
    let block = p.doc >> BLOCK_BITS;
    if out.last().is_none_or(|b| b.block != block) {
      out.push(Block {
        block,
        start: i as u32,
        max: 0.0,
        titled: 0.0,
        named: false,
        docs: 0,
        names: 0,
      });
    }
    let b = out
      .last_mut()
      .unwrap_or_else(|| unreachable!("pushed above"));
    b.max = b.max.max(p.weight);
    if p.field != Field::Description {
      b.titled = b.titled.max(p.weight);
    }
    b.named |= p.field == Field::Name;
    let bit = 1u64 << (p.doc as usize % BLOCK);
    b.docs |= bit;
    if p.field == Field::Name {
      b.names |= bit;
    }
  }
  out
}
