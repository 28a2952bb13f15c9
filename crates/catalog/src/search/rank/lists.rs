//! The lists a query reads: for each of its concepts the terms it reaches (each with its scale,
//! capped by the rarity of the concept as a whole), the phrases of consecutive main words, and
//! the names that are or start with the whole query; each list with a cursor over its blocks.
//! Separate from the walk (`rank.rs`) because this is what a query is turned into before any
//! block is visited.

use std::cell::RefCell;

use crate::search::index::{BLOCK_BITS, Block, Posting, SearchIndex};
use crate::search::query::Query;
use crate::search::weights::{LEAD, NAME_PREFIX_BOOST, PREFIX, idf};

thread_local! {
  /// One bit per document, all clear between uses (the union of a concept's lists).
  static MARKS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Term sets whose union sizes are kept per index, at most, and the most terms a kept set has
/// (a prefix that reaches more is counted each time, as the exhaustive ranking does).
const MAX_UNIONS: usize = 4_096;
const MAX_UNION_TERMS: usize = 256;

/// One list a query reads, and where its walk is in the list's blocks.
#[derive(Clone)]
pub(super) struct Cursor<'i> {
  pub(super) postings: &'i [Posting],
  blocks: &'i [Block],
  pub(super) at: usize,
}

impl<'i> Cursor<'i> {
  fn new(postings: &'i [Posting], blocks: &'i [Block]) -> Self {
    Cursor {
      postings,
      blocks,
      at: 0,
    }
  }

  /// The next block this list has postings in.
  pub(super) fn next_block(&self) -> u32 {
    self.blocks.get(self.at).map_or(u32::MAX, |b| b.block)
  }

  /// Moves past the blocks before `block` (a binary search: skipped blocks cost nothing).
  pub(super) fn seek(&mut self, block: u32) {
    if self.next_block() < block {
      self.at += self.blocks[self.at..].partition_point(|b| b.block < block);
    }
  }

  /// This list's part of block `block`, if it has one.
  pub(super) fn block(&self, block: u32) -> Option<&'i Block> {
    self.blocks.get(self.at).filter(|b| b.block == block)
  }

  /// This list's postings in block `block` (none if it has none there).
  pub(super) fn postings(&self, block: u32) -> &'i [Posting] {
    match self.block(block) {
      Some(b) => {
        let end = self
          .blocks
          .get(self.at + 1)
          .map_or(self.postings.len(), |n| n.start as usize);
        &self.postings[b.start as usize..end]
      }
      None => &[],
    }
  }
}

/// One term a query reaches: its concept, its alternative (numbered across the query), its list,
/// the list's bounds and its scale. A query's terms are kept in query order: concepts, then
/// alternatives.
#[derive(Clone)]
pub(super) struct Term<'i> {
  pub(super) concept: u32,
  pub(super) alternative: u32,
  pub(super) cursor: Cursor<'i>,
  pub(super) whole: Block,
  pub(super) scale: f32,
}

/// One query word.
pub(super) struct Concept {
  pub(super) minor: bool,
  pub(super) weight: f32,
}

/// A phrase list: its cursor, bounds and idf, and the terms (the two words' own) a tool must be
/// in to be in it.
#[derive(Clone)]
pub(super) struct Phrase<'i> {
  pub(super) cursor: Cursor<'i>,
  pub(super) whole: Block,
  pub(super) idf: f32,
  pub(super) words: (usize, usize),
}

/// A tool whose name is or starts with the whole query.
#[derive(Clone, Copy)]
pub(super) struct Named {
  pub(super) doc: u32,
  pub(super) exact: bool,
  /// The name-prefix boost, added last.
  pub(super) boost: Option<f32>,
}

/// A query's lists, as the walk reads them: its concepts, their terms in query order, its
/// phrases, and the names that are or start with the whole query (in document order), with the
/// blocks of exact names and the largest name-prefix boost.
pub(super) struct Lists<'i> {
  pub(super) plan: Vec<Concept>,
  pub(super) terms: Vec<Term<'i>>,
  pub(super) phrases: Vec<Phrase<'i>>,
  pub(super) named: Vec<Named>,
  pub(super) exact_blocks: Vec<u32>,
  pub(super) most_boost: Option<f32>,
}

impl SearchIndex {
  /// Number of tools that contain at least one of `terms`, counted once per term set and index.
  fn union_size(&self, terms: &[usize], read: &mut usize) -> usize {
    if let [t] = terms {
      return self.words.postings[*t].len();
    }
    let mut key: Vec<u32> = terms.iter().map(|&t| t as u32).collect();
    key.sort_unstable();
    key.dedup();
    let kept = key.len() <= MAX_UNION_TERMS;
    if kept && let Some(&size) = self.unions.lock().get(&key[..]) {
      return size as usize;
    }
    let size = MARKS.with(|marks| {
      let mut marks = marks.borrow_mut();
      let words = self.docs.div_ceil(64);
      if marks.len() < words {
        marks.resize(words, 0);
      }
      let mut size = 0;
      for &t in &key {
        let postings = &self.words.postings[t as usize];
        *read += postings.len();
        for p in postings {
          let (word, bit) = ((p.doc >> 6) as usize, 1u64 << (p.doc & 63));
          size += (marks[word] & bit == 0) as usize;
          marks[word] |= bit;
        }
      }
      // Clear what was set, not the whole map: the count costs the postings, not the catalog.
      for &t in &key {
        for p in &self.words.postings[t as usize] {
          marks[(p.doc >> 6) as usize] = 0;
        }
      }
      size
    });
    if kept {
      let mut unions = self.unions.lock();
      if unions.len() >= MAX_UNIONS {
        unions.clear();
      }
      unions.insert(key.into_boxed_slice(), size as u32);
    }
    size
  }

  /// The lists `query` reads (postings read counting the rarity of its concepts added to
  /// `read`).
  pub(super) fn lists(&self, query: &Query, read: &mut usize) -> Lists<'_> {
    let (parsed, whole) = (&query.concepts, query.whole.as_str());
    let mut plan: Vec<Concept> = Vec::with_capacity(parsed.len());
    let mut terms: Vec<Term> = Vec::new();
    let mut term_ids: Vec<usize> = Vec::new();
    // Each concept's own word, as a position in `terms` (phrases need both words').
    let mut own: Vec<Option<usize>> = Vec::with_capacity(parsed.len());
    let mut alternatives = 0u32;
    for (c, concept) in parsed.iter().enumerate() {
      let mut raw: Vec<(u32, usize, f32, bool)> = Vec::new();
      for (k, (word, factor)) in concept.alternatives().enumerate() {
        for t in self.words.reached(word, k == 0 && !concept.minor) {
          raw.push((
            alternatives + k as u32,
            t,
            factor,
            &*self.words.terms[t] == word,
          ));
        }
      }
      let own_alternative = alternatives;
      alternatives += concept.alternatives().count() as u32;
      // A hit says no more than its concept does: "get" reaches every tool that says get, fetch,
      // load or retrieve, so a rare synonym (`web_fetch`) must not score like a rare word.
      term_ids.clear();
      term_ids.extend(raw.iter().map(|&(_, t, _, _)| t));
      let ceiling = idf(self.docs, self.union_size(&term_ids, read));
      // A stopword counts only in names and labels: a list with none there adds nothing.
      if concept.minor {
        raw.retain(|&(_, t, _, _)| self.words.whole[t].titled > 0.0);
      }
      let first = terms.len();
      own.push(
        raw
          .iter()
          .position(|&(a, _, _, exact)| a == own_alternative && exact)
          .map(|i| first + i),
      );
      terms.extend(raw.iter().map(|&(alternative, t, factor, exact)| Term {
        concept: c as u32,
        alternative,
        cursor: Cursor::new(&self.words.postings[t], &self.words.blocks[t]),
        whole: self.words.whole[t],
        scale: factor * self.words.idf[t].min(ceiling) * if exact { 1.0 } else { PREFIX },
      }));
      plan.push(Concept {
        minor: concept.minor,
        weight: if c == 0 { LEAD } else { 1.0 },
      });
    }

    // Phrases: consecutive main query words that are consecutive in a tool's text.
    let mains: Vec<usize> = (0..parsed.len()).filter(|&c| !parsed[c].minor).collect();
    let mut phrases: Vec<Phrase> = Vec::new();
    for pair in mains.windows(2) {
      let (Some(a), Some(b)) = (own[pair[0]], own[pair[1]]) else {
        continue;
      };
      let (Some(first), Some(second)) = (
        self.words.get(&parsed[pair[0]].word),
        self.words.get(&parsed[pair[1]].word),
      ) else {
        continue;
      };
      if let Ok(i) = self
        .pairs
        .binary_search_by_key(&(first as u32, second as u32), |p| p.0)
      {
        let (_, postings, idf) = &self.pairs[i];
        phrases.push(Phrase {
          cursor: Cursor::new(postings, &self.pair_blocks[i]),
          whole: self.pair_whole[i],
          idf: *idf,
          words: (a, b),
        });
      }
    }

    // Names that are or start with the whole query: an exact name ranks first outright; a
    // prefix adds a boost, last. A name that does neither adds nothing and is left out.
    let from = self.names.partition_point(|(name, _)| **name < *whole);
    let mut named: Vec<Named> = self.names[from..]
      .iter()
      .take_while(|(name, _)| name.starts_with(whole))
      .map(|(name, doc)| {
        let exact = **name == *whole;
        Named {
          doc: *doc,
          exact,
          boost: (!exact && whole.len() >= 2)
            .then(|| NAME_PREFIX_BOOST * whole.len() as f32 / name.len() as f32),
        }
      })
      .filter(|n| n.exact || n.boost.is_some())
      .collect();
    named.sort_unstable_by_key(|n| n.doc);
    let exact_blocks: Vec<u32> = named
      .iter()
      .filter(|n| n.exact)
      .map(|n| n.doc >> BLOCK_BITS)
      .collect();
    let most_boost = named.iter().filter_map(|n| n.boost).reduce(f32::max);
    Lists {
      plan,
      terms,
      phrases,
      named,
      exact_blocks,
      most_boost,
    }
  }
}
