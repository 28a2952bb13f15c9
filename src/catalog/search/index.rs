//! The inverted index and its build: sorted word and word-pair tables with postings and idf,
//! name-word counts and compact names, from the name, label and description of each [`Doc`].

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::text::{compact, index_words, words};
use super::thesaurus::is_stopword;
use super::weights::{B, DESCRIPTION, K1, LABEL, NAME, idf};

/// What the index needs to know of one catalog entry.
pub struct Doc<'a> {
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

/// A sorted word list with postings: exact lookups and prefix ranges by binary search, without
/// a tree's pointer chasing.
#[derive(Default)]
pub(super) struct Table {
  pub(super) terms: Vec<Box<str>>,
  pub(super) postings: Vec<Vec<Posting>>,
  pub(super) idf: Vec<f32>,
  /// The largest posting weight of each term: a bound on what it can add to any tool's score.
  pub(super) max_weight: Vec<f32>,
}

impl Table {
  /// Index of the first term `>= word`.
  pub(super) fn lower_bound(&self, word: &str) -> usize {
    self.terms.partition_point(|t| &**t < word)
  }

  pub(super) fn get(&self, word: &str) -> Option<usize> {
    let i = self.lower_bound(word);
    (self.terms.get(i).map(|t| &**t) == Some(word)).then_some(i)
  }
}

/// FNV-1a: the index builder hashes a few hundred thousand short words, where SipHash's
/// flooding resistance buys nothing (the catalog is not adversarial) and costs most of the time.
#[derive(Default)]
struct Fnv(u64);

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

type FnvMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// Inverted index over a fixed list of documents (the guest-visible catalog entries).
pub struct SearchIndex {
  pub(super) words: Table,
  /// Adjacent word pairs (stopwords skipped), as indices into `words.terms`, sorted, with
  /// postings and idf: a query that repeats a tool's own phrasing ("search file contents") is a
  /// better match than one that scatters the same words.
  pub(super) pairs: Vec<((u32, u32), Vec<Posting>, f32)>,
  /// The largest posting weight of each pair, in the order of `pairs`.
  pub(super) pair_max: Vec<f32>,
  /// Distinct words in each document's name, for name coverage.
  pub(super) name_words: Vec<u8>,
  /// Normalised full names (`web_search` → `websearch`) with their document, sorted, for
  /// exact-name and name-prefix matches.
  pub(super) names: Vec<(Box<str>, u32)>,
  pub(super) docs: usize,
}

impl SearchIndex {
  pub fn build<'a>(docs: impl IntoIterator<Item = Doc<'a>>) -> Self {
    let docs: Vec<Doc<'a>> = docs.into_iter().collect();
    let parsed: Vec<[Vec<String>; 3]> = docs
      .iter()
      .map(|doc| {
        [
          words(doc.name),
          index_words(doc.label.unwrap_or("")),
          index_words(doc.description),
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
      let norm = (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * fields[2].len() as f32 / average));
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
      words.max_weight.push(max_weight(&list));
      words.terms.push(texts[id as usize].into());
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
    let pair_max = pairs.iter().map(|p| max_weight(&p.1)).collect();
    SearchIndex {
      words,
      pairs,
      pair_max,
      name_words,
      names,
      docs: count,
    }
  }
}

fn max_weight(list: &[Posting]) -> f32 {
  list.iter().map(|p| p.weight).fold(0.0, f32::max)
}
