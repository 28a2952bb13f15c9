//! Ranking: scores the tools a query's concepts reach (best field, rarity capped per concept,
//! coverage, phrases, name matches) and keeps the top `limit`, best first, ties by id.
//!
//! Documents are numbered in id order (`index.rs`), and a search walks them in that order one
//! block of [`BLOCK`] at a time, so a tool met later loses a tie to the tools already kept
//! (`Worst` compares ids where that order does not say). Bounds let it pass over tools that
//! cannot reach the top, each computed with the very operations a score takes: every step of a
//! score (max, sums in query order, products of non-negative numbers) only grows with its
//! inputs, in floating point too, so a bound fed weights at least a tool's own is at least its
//! score.
//!
//! - Seeds: the blocks of exact names and of the strongest name prefixes are scored first, so
//!   the top is full of likely answers before the walk starts.
//! - Lists (MaxScore): once the top is full, the query's lists (terms, phrases, the name
//!   boosts) are split in two. The *passive* ones are the most lists, longest first, whose
//!   bound together, from each list's largest weight anywhere, cannot pass the worst kept
//!   entry: a tool found only in them cannot enter. The walk visits only the blocks an *active*
//!   list (or an exact name) has postings in; passive lists are looked up there and skipped
//!   past everywhere else. When every tool says the query's common words alike, the first block
//!   fills the top, every list turns passive, and the walk ends: no pass over the catalog.
//! - Blocks (block-max): a visited block is not scored when its bound, from each list's
//!   largest weight in the block, cannot pass the worst kept entry; nor when no tool of it can,
//!   each bounded from the words it has (the lists' tool masks per block) at the block's
//!   largest weights, with its own name words and boost.
//!
//! Descriptions weigh by length classes (`index::length_class`), so tools written from one
//! template weigh a word alike and these bounds are tight on them. A block that is scored has
//! each of its tools scored exactly as the exhaustive ranking (`reference.rs`) scores it,
//! concept by concept, so results are the same to the bit (`tests.rs` and `differential.rs`
//! compare them).

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::index::{BLOCK, BLOCK_BITS, Block, Field, Posting, SearchIndex};
use super::query::{QueryTruncation, read};
use super::weights::{
  EXTRA, KEEP, LEAD, MINOR, NAME_COVER, NAME_PREFIX_BOOST, PHRASE, PREFIX, idf,
};

thread_local! {
  /// The last search's work on this thread: postings read, candidates scored, blocks visited.
  static WORK: Cell<(usize, usize, usize)> = const { Cell::new((0, 0, 0)) };
  /// One bit per document, all clear between uses (the union of a concept's lists).
  static MARKS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Postings read and candidates scored by this thread's last search: a measure of a search's
/// work that does not depend on the machine's speed.
#[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
pub fn last_search_work() -> (usize, usize) {
  let (read, scored, _) = WORK.with(Cell::get);
  (read, scored)
}

/// Blocks (of [`BLOCK`] documents) this thread's last search visited: looked at, scored or not.
#[cfg(test)]
pub fn last_search_blocks() -> usize {
  WORK.with(Cell::get).2
}

/// Term sets whose union sizes are kept per index, at most, and the most terms a kept set has
/// (a prefix that reaches more is counted each time, as the exhaustive ranking does).
const MAX_UNIONS: usize = 4_096;
const MAX_UNION_TERMS: usize = 256;

/// The worst entry of a full top: whether it is an exact name, its score, its document.
#[derive(Clone, Copy, PartialEq)]
struct Worst {
  exact: bool,
  score: f32,
  doc: u32,
}

impl Worst {
  /// Whether a tool scoring at most `bound`, numbered `first` or later (in id order), may rank
  /// above it (of the same exactness): a tie loses to an earlier id.
  fn passed_by(self, bound: f32, first: u32) -> bool {
    bound > self.score || (bound == self.score && first < self.doc)
  }
}

/// Blocks scored before the walk, at most: those of exact names, then of the strongest name
/// prefixes. The tools whose whole name the query says are the likeliest top, and their
/// neighbours in id order are often their siblings; a top filled from them early lets the walk
/// skip most of the rest.
const SEEDS: usize = 4;

/// One list a query reads, and where its walk is in the list's blocks.
#[derive(Clone)]
struct Cursor<'i> {
  postings: &'i [Posting],
  blocks: &'i [Block],
  at: usize,
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
  fn next_block(&self) -> u32 {
    self.blocks.get(self.at).map_or(u32::MAX, |b| b.block)
  }

  /// Moves past the blocks before `block` (a binary search: skipped blocks cost nothing).
  fn seek(&mut self, block: u32) {
    if self.next_block() < block {
      self.at += self.blocks[self.at..].partition_point(|b| b.block < block);
    }
  }

  /// This list's part of block `block`, if it has one.
  fn block(&self, block: u32) -> Option<&'i Block> {
    self.blocks.get(self.at).filter(|b| b.block == block)
  }

  /// This list's postings in block `block` (none if it has none there).
  fn postings(&self, block: u32) -> &'i [Posting] {
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
struct Term<'i> {
  concept: u32,
  alternative: u32,
  cursor: Cursor<'i>,
  whole: Block,
  scale: f32,
}

/// One query word.
struct Concept {
  minor: bool,
  weight: f32,
}

/// A phrase list: its cursor, bounds and idf, and the terms (the two words' own) a tool must be
/// in to be in it.
#[derive(Clone)]
struct Phrase<'i> {
  cursor: Cursor<'i>,
  whole: Block,
  idf: f32,
  words: (usize, usize),
}

/// A tool whose name is or starts with the whole query.
#[derive(Clone, Copy)]
struct Named {
  doc: u32,
  exact: bool,
  /// The name-prefix boost, added last.
  boost: Option<f32>,
}

/// What one query has found out about one document of the current block.
#[derive(Clone, Copy, Default)]
struct Acc {
  /// Score so far, before coverage.
  total: f32,
  /// Major concepts matched, and how many of them hit the name.
  matched: u16,
  named: u16,
  /// The current concept: its best alternative, the sum over alternatives, a name hit.
  best: f32,
  sum: f32,
  in_name: bool,
  /// The current alternative's best hit (a prefix can match several words of one tool).
  hit: f32,
  exact: bool,
}

/// The documents of a block set in `mask`, in order.
fn each(mut mask: u64, mut f: impl FnMut(usize)) {
  while mask != 0 {
    f(mask.trailing_zeros() as usize);
    mask &= mask - 1;
  }
}

/// A search's result: positions in the list the index was built from, best first, and whether
/// only the first part of the query was searched.
pub struct Ranked {
  pub hits: Vec<usize>,
  pub truncated: Option<QueryTruncation>,
}

/// What one concept can add to a tool in a block (or anywhere): its value as a score adds it
/// (a minor concept's already scaled), the tools that have one of its words, and those that have
/// one in their name.
struct Reach {
  value: f32,
  docs: u64,
  names: u64,
  minor: bool,
}

/// The concepts of the terms `chosen` (query order, each with the bounds of its postings: in a
/// block, or in the whole list) into `out`: each with the scoring's own steps on the largest
/// weights, as if every chosen list hit a tool at its largest weight.
fn reaches<'t>(
  terms: &[Term],
  plan: &[Concept],
  chosen: impl Iterator<Item = (usize, &'t Block)>,
  out: &mut Vec<Reach>,
) {
  out.clear();
  // The open concept (its best alternative, sum, tools) and alternative (its best hit).
  let mut concept: Option<(u32, f32, f32, u64, u64)> = None;
  let mut alternative: Option<(u32, f32)> = None;
  let close_alternative =
    |alternative: &mut Option<(u32, f32)>, concept: &mut Option<(u32, f32, f32, u64, u64)>| {
      if let (Some((_, hit)), Some((_, best, sum, _, _))) = (alternative.take(), concept) {
        *sum += hit;
        *best = best.max(hit);
      }
    };
  let close_concept = |concept: &mut Option<(u32, f32, f32, u64, u64)>, out: &mut Vec<Reach>| {
    if let Some((c, best, sum, docs, names)) = concept.take() {
      let c = &plan[c as usize];
      let score = (KEEP * best + EXTRA * sum) * c.weight;
      out.push(Reach {
        value: if c.minor { score * MINOR } else { score },
        docs,
        names,
        minor: c.minor,
      });
    }
  };
  for (t, b) in chosen {
    let term = &terms[t];
    let minor = plan[term.concept as usize].minor;
    let weight = if minor { b.titled } else { b.max };
    if weight == 0.0 {
      // No posting here, or a minor word's in descriptions only: none of them count.
      continue;
    }
    if alternative.is_some_and(|(a, _)| a != term.alternative) {
      close_alternative(&mut alternative, &mut concept);
    }
    if concept.is_some_and(|(c, ..)| c != term.concept) {
      close_concept(&mut concept, out);
    }
    let open = concept.get_or_insert((term.concept, 0.0, 0.0, 0, 0));
    open.3 |= b.docs;
    open.4 |= b.names;
    let hit = &mut alternative.get_or_insert((term.alternative, 0.0)).1;
    *hit = hit.max(weight * term.scale);
  }
  close_alternative(&mut alternative, &mut concept);
  close_concept(&mut concept, out);
}

/// The most a tool can score that has every concept of `reach`, the phrase bonuses `phrases`
/// (largest weight times idf) and a name boost, with at least `fewest` name words: the
/// scoring's own steps, in its order.
fn bound(
  reach: &[Reach],
  phrases: impl Iterator<Item = f32>,
  boost: Option<f32>,
  fewest: u8,
  coverage: &impl Fn(u16) -> f32,
) -> f32 {
  let (mut total, mut matched, mut named) = (0f32, 0u16, 0u16);
  for r in reach {
    total += r.value;
    if !r.minor {
      matched += 1;
      named += (r.names != 0) as u16;
    }
  }
  for phrase in phrases {
    total += phrase;
  }
  if let Some(boost) = boost {
    total += boost;
  }
  let share = (named as f32 / fewest as f32).min(1.0);
  total * coverage(matched) * (1.0 + NAME_COVER * share)
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

  /// Positions (in the list the index was built from) ranked for `query`, best first, ties by
  /// id, at most `limit`. An empty query lists the first `limit` in the given order.
  pub fn search(&self, query: &str, limit: usize) -> Vec<usize> {
    self.ranked(query, limit).hits
  }

  /// [`Self::search`], saying whether the query was cut to its first part (over
  /// [`super::MAX_QUERY_CHARS`] characters or [`super::MAX_QUERY_WORDS`] distinct words).
  pub fn ranked(&self, query: &str, limit: usize) -> Ranked {
    self.search_with(query, limit, true)
  }

  /// [`Self::search`] without skipping: every block a concept reaches is scored (tests).
  #[cfg(test)]
  pub fn search_exhaustive(&self, query: &str, limit: usize) -> Vec<usize> {
    self.search_with(query, limit, false).hits
  }

  fn search_with(&self, query: &str, limit: usize, skip: bool) -> Ranked {
    let query = read(query);
    if query.whole.is_empty() || limit == 0 {
      WORK.with(|w| w.set((0, 0, 0)));
      return Ranked {
        hits: (0..self.docs.min(limit)).collect(),
        truncated: query.truncated,
      };
    }
    let hits = self
      .rank(&query, limit, skip)
      .into_iter()
      .map(|d| self.external[d as usize] as usize)
      .collect();
    Ranked {
      hits,
      truncated: query.truncated,
    }
  }

  fn rank(&self, query: &super::query::Query, limit: usize, skip: bool) -> Vec<u32> {
    let (mut read, mut scored, mut visited) = (0usize, 0usize, 0usize);
    let (parsed, whole) = (&query.concepts, query.whole.as_str());
    let major = parsed.iter().filter(|c| !c.minor).count();
    let coverage = |matched: u16| {
      if major == 0 {
        1.0
      } else {
        let share = matched as f32 / major as f32;
        share * share
      }
    };

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
      let ceiling = idf(self.docs, self.union_size(&term_ids, &mut read));
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
    let (mut next_named, mut next_exact) = (0, 0);

    // Top `limit` by (exact, score, id), kept sorted (documents are numbered in id order).
    let better = |x: &(u32, bool, f32), y: &(u32, bool, f32)| {
      y.1
        .cmp(&x.1)
        .then_with(|| y.2.total_cmp(&x.2))
        .then_with(|| x.0.cmp(&y.0))
    };
    let mut top: Vec<(u32, bool, f32)> = Vec::with_capacity(limit + 1);
    let mut acc = [Acc::default(); BLOCK];

    // The lists a search can skip by: terms, then phrases, then the name boosts (one list).
    // Which are passive is a prefix of `order`, longest lists first: the walk follows the
    // shortest lists it must.
    let sources = Sources {
      terms: terms.len(),
      phrases: phrases.len(),
    };
    let count = sources.names() + most_boost.is_some() as usize;
    let length = |i: usize| match sources.kind(i) {
      Source::Term(t) => terms[t].cursor.postings.len(),
      Source::Phrase(p) => phrases[p].cursor.postings.len(),
      Source::Names => named.len(),
    };
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&i| (Reverse(length(i)), i));
    let mut passive = vec![false; count];
    // The worst kept entry the split was made for, and work done since (a split costs the
    // lists; it is redone once the walk has done as much work).
    let mut split_for: Option<Worst> = None;
    let mut since_split = 0usize;
    let mut reach: Vec<Reach> = Vec::new();

    // Lists that drive the walk (active terms and phrases) by the next block they have postings
    // in; passive terms apart, sought only where the walk goes (passive phrases are sought at
    // every visit).
    let mut active: BinaryHeap<Reverse<(u32, u32)>> = terms
      .iter()
      .map(|t| t.cursor.next_block())
      .chain(phrases.iter().map(|p| p.cursor.next_block()))
      .enumerate()
      .filter(|&(_, b)| b != u32::MAX)
      .map(|(i, b)| Reverse((b, i as u32)))
      .collect();
    let mut lazy: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    let mut here: Vec<u32> = Vec::new();
    let mut here_phrases: Vec<u32> = Vec::new();
    // Keeps a scored block's candidates that make the top.
    let keep = |top: &mut Vec<(u32, bool, f32)>, block: u32, acc: &[Acc; BLOCK], candidates| {
      let mut scored = 0;
      each(candidates, |i| {
        scored += 1;
        let doc = (block << BLOCK_BITS) + i as u32;
        let a = acc[i];
        // Coverage squared: missing half the query costs three quarters of the score.
        let share = (a.named as f32 / self.name_words[doc as usize].max(1) as f32).min(1.0);
        let score = a.total * coverage(a.matched) * (1.0 + NAME_COVER * share);
        if !a.exact && score <= 0.0 {
          return;
        }
        let entry = (doc, a.exact, score);
        if top.len() == limit && better(&entry, &top[limit - 1]).is_ge() {
          return;
        }
        let at = top.partition_point(|x| better(x, &entry).is_lt());
        top.insert(at, entry);
        top.truncate(limit);
      });
      scored
    };
    let worst = |top: &[(u32, bool, f32)]| {
      (top.len() == limit).then(|| {
        let (doc, exact, score) = top[limit - 1];
        Worst { exact, score, doc }
      })
    };

    // Seeds (see `SEEDS`): scored first, out of id order (ties then compare ids, `Worst`), and
    // passed over by the walk.
    let mut seeds: Vec<u32> = Vec::new();
    if skip {
      let mut boosted: Vec<(f32, u32)> = named
        .iter()
        .filter_map(|n| n.boost.map(|boost| (boost, n.doc)))
        .collect();
      boosted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
      let exact = named.iter().filter(|n| n.exact).map(|n| n.doc);
      for doc in exact.chain(boosted.into_iter().map(|(_, doc)| doc)) {
        let block = doc >> BLOCK_BITS;
        if !seeds.contains(&block) {
          if seeds.len() == SEEDS {
            break;
          }
          seeds.push(block);
        }
      }
      seeds.sort_unstable();
      for &block in &seeds {
        let mut terms = terms.clone();
        let mut phrases = phrases.clone();
        here.clear();
        for (t, term) in terms.iter_mut().enumerate() {
          term.cursor.seek(block);
          if term.cursor.block(block).is_some() {
            here.push(t as u32);
          }
        }
        for phrase in &mut phrases {
          phrase.cursor.seek(block);
        }
        let from = named.partition_point(|n| n.doc >> BLOCK_BITS < block);
        let to = named.partition_point(|n| n.doc >> BLOCK_BITS <= block);
        let hits = Hits {
          block,
          terms: &terms,
          active: &here,
          plan: &plan,
          phrases: &phrases,
          names: &named[from..to],
        };
        visited += 1;
        let (postings, candidates) = hits.score(&mut acc);
        read += postings;
        scored += keep(&mut top, block, &acc, candidates);
        acc = [Acc::default(); BLOCK];
      }
    }
    // The first document the walk has not passed yet.
    let mut next = 0u32;
    loop {
      // A new worst kept entry: more lists may have turned passive.
      if let Some(worst) = worst(&top).filter(|_| skip) {
        let stale = split_for.is_none_or(|was| was != worst);
        if stale && (split_for.is_none() || since_split >= count) {
          split_for = Some(worst);
          since_split = 0;
          let split = Split {
            terms: &terms,
            plan: &plan,
            phrases: &phrases,
            sources,
            most_boost,
          };
          split.passive(
            self,
            &order,
            worst,
            next,
            &coverage,
            &mut reach,
            &mut passive,
          );
        }
      }
      // Lists that turned passive leave the active heap as they surface: terms for the lazy heap,
      // phrases for good.
      while let Some(&Reverse((b, i))) = active.peek() {
        if !passive[i as usize] {
          break;
        }
        active.pop();
        if (i as usize) < terms.len() {
          lazy.push(Reverse((b, i)));
        }
      }
      let names_active = !passive.get(sources.names()).copied().unwrap_or(true);
      let block = active
        .peek()
        .map_or(u32::MAX, |Reverse((b, _))| *b)
        .min(exact_blocks.get(next_exact).copied().unwrap_or(u32::MAX))
        .min(if names_active {
          named
            .get(next_named)
            .map_or(u32::MAX, |n| n.doc >> BLOCK_BITS)
        } else {
          u32::MAX
        });
      if block == u32::MAX {
        break;
      }
      visited += 1;
      here.clear();
      here_phrases.clear();
      while let Some(&Reverse((b, i))) = active.peek() {
        if b != block {
          break;
        }
        active.pop();
        if (i as usize) < terms.len() {
          here.push(i);
        } else {
          here_phrases.push(i);
        }
      }
      // Passive terms: past the blocks the walk skipped, and in this one if they have postings.
      while let Some(&Reverse((b, t))) = lazy.peek() {
        if b > block {
          break;
        }
        lazy.pop();
        if b == block {
          here.push(t);
          continue;
        }
        let cursor = &mut terms[t as usize].cursor;
        cursor.seek(block);
        if cursor.next_block() != u32::MAX {
          lazy.push(Reverse((cursor.next_block(), t)));
        }
      }
      // Query order: the scores' sums are taken in it.
      here.sort_unstable();
      while exact_blocks.get(next_exact).is_some_and(|&b| b <= block) {
        next_exact += 1;
      }
      next_named += named[next_named..].partition_point(|n| n.doc >> BLOCK_BITS < block);
      let in_block = named[next_named..]
        .iter()
        .take_while(|n| n.doc >> BLOCK_BITS == block)
        .count();
      let names = &named[next_named..next_named + in_block];
      next_named += in_block;
      for phrase in &mut phrases {
        phrase.cursor.seek(block);
      }

      let hits = Hits {
        block,
        terms: &terms,
        active: &here,
        plan: &plan,
        phrases: &phrases,
        names,
      };
      let passed = seeds.binary_search(&block).is_ok()
        || (skip
          && worst(&top).is_some_and(|worst| !self.may_enter(&hits, worst, &coverage, &mut reach)));
      since_split += here.len() + 1;
      if !passed {
        let (postings, candidates) = hits.score(&mut acc);
        read += postings;
        since_split += postings;
        scored += keep(&mut top, block, &acc, candidates);
        acc = [Acc::default(); BLOCK];
      }
      for &t in &here {
        let cursor = &mut terms[t as usize].cursor;
        cursor.at += 1;
        if cursor.next_block() != u32::MAX {
          let entry = Reverse((cursor.next_block(), t));
          if passive[t as usize] {
            lazy.push(entry);
          } else {
            active.push(entry);
          }
        }
      }
      for &i in &here_phrases {
        let cursor = &mut phrases[i as usize - terms.len()].cursor;
        cursor.at += 1;
        if cursor.next_block() != u32::MAX && !passive[i as usize] {
          active.push(Reverse((cursor.next_block(), i)));
        }
      }

      next = (block + 1) << BLOCK_BITS;
    }
    WORK.with(|w| w.set((read, scored, visited)));
    top.into_iter().map(|(d, _, _)| d).collect()
  }

  /// Whether a tool of the block may still enter a full top whose worst entry is `worst`. First
  /// from the block's largest weights alone; then tool by tool, from the words each has (the
  /// lists' tool masks), each at the block's largest weight, with the tool's own name words and
  /// boost.
  fn may_enter(
    &self,
    hits: &Hits,
    worst: Worst,
    coverage: &impl Fn(u16) -> f32,
    reach: &mut Vec<Reach>,
  ) -> bool {
    let exact_here = hits.names.iter().any(|n| n.exact);
    if exact_here && !worst.exact {
      return true;
    }
    if worst.exact && !exact_here {
      // Only an exact name can pass an exact name.
      return false;
    }
    let block = hits.block;
    reaches(
      hits.terms,
      hits.plan,
      hits
        .active
        .iter()
        .filter_map(|&t| hits.term(t).cursor.block(block).map(|b| (t as usize, b))),
      reach,
    );
    let phrases = || {
      hits.phrases.iter().filter_map(|p| {
        p.cursor
          .block(block)
          .map(|b| (PHRASE * b.max * p.idf, b.docs))
      })
    };
    let coarse = bound(
      reach,
      phrases().map(|(value, _)| value),
      hits.names.iter().filter_map(|n| n.boost).reduce(f32::max),
      self.block_name_words[block as usize],
      coverage,
    );
    let base = block << BLOCK_BITS;
    if !worst.passed_by(coarse, base) {
      return false;
    }
    let mut tools = reach.iter().fold(0u64, |m, r| m | r.docs);
    for n in hits.names {
      tools |= 1 << (n.doc - base);
    }
    let mut found = false;
    each(tools, |i| {
      if found {
        return;
      }
      let bit = 1u64 << i;
      let own = hits.names.iter().find(|n| n.doc == base + i as u32);
      if worst.exact && !own.is_some_and(|n| n.exact) {
        return;
      }
      let (mut total, mut matched, mut named) = (0f32, 0u16, 0u16);
      for r in reach.iter().filter(|r| r.docs & bit != 0) {
        total += r.value;
        if !r.minor {
          matched += 1;
          named += (r.names & bit != 0) as u16;
        }
      }
      for (value, docs) in phrases() {
        if docs & bit != 0 {
          total += value;
        }
      }
      if let Some(boost) = own.and_then(|n| n.boost) {
        total += boost;
      }
      let words = self.name_words[(base + i as u32) as usize].max(1);
      let share = (named as f32 / words as f32).min(1.0);
      let bound = total * coverage(matched) * (1.0 + NAME_COVER * share);
      found = worst.passed_by(bound, base + i as u32);
    });
    found
  }
}

/// Numbering of the lists a search can skip by: terms, phrases, the name boosts.
#[derive(Clone, Copy)]
struct Sources {
  terms: usize,
  phrases: usize,
}

enum Source {
  Term(usize),
  Phrase(usize),
  Names,
}

impl Sources {
  fn names(self) -> usize {
    self.terms + self.phrases
  }

  fn kind(self, i: usize) -> Source {
    if i < self.terms {
      Source::Term(i)
    } else if i < self.names() {
      Source::Phrase(i - self.terms)
    } else {
      Source::Names
    }
  }
}

/// What the split of a query's lists into active and passive ones needs.
struct Split<'s, 'i> {
  terms: &'s [Term<'i>],
  plan: &'s [Concept],
  phrases: &'s [Phrase<'i>],
  sources: Sources,
  most_boost: Option<f32>,
}

impl Split<'_, '_> {
  /// Marks passive the longest prefix of `order` whose lists together cannot lift a tool
  /// numbered `next` or later above the worst kept entry `worst`, bounded from each list's
  /// largest weight anywhere. (A phrase counts only with both its words' lists: a tool in it is
  /// in theirs.) Behind an exact name every list is passive: only exact names, which the walk
  /// always visits, can still enter.
  #[allow(clippy::too_many_arguments)]
  fn passive(
    &self,
    index: &SearchIndex,
    order: &[usize],
    worst: Worst,
    next: u32,
    coverage: &impl Fn(u16) -> f32,
    reach: &mut Vec<Reach>,
    passive: &mut [bool],
  ) {
    if worst.exact {
      passive.fill(true);
      return;
    }
    let mut chosen = vec![false; order.len()];
    let mut fits = |k: usize| {
      chosen.fill(false);
      for &i in &order[..k] {
        chosen[i] = true;
      }
      let terms = self.terms;
      reaches(
        terms,
        self.plan,
        (0..terms.len())
          .filter(|&t| chosen[t])
          .map(|t| (t, &terms[t].whole)),
        reach,
      );
      let phrases = self.phrases.iter().enumerate().filter(|(p, phrase)| {
        chosen[self.sources.terms + p] && chosen[phrase.words.0] && chosen[phrase.words.1]
      });
      let boost = self
        .most_boost
        .filter(|_| chosen.get(self.sources.names()).copied().unwrap_or(false));
      let value = bound(
        reach,
        phrases.map(|(_, p)| PHRASE * p.whole.max * p.idf),
        boost,
        index.fewest_name_words,
        coverage,
      );
      !worst.passed_by(value, next)
    };
    // The bound only grows with the prefix: the longest one that fits, by bisection.
    let (mut lo, mut hi) = (0, order.len());
    while lo < hi {
      let mid = (lo + hi).div_ceil(2);
      if fits(mid) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    for &i in &order[..lo] {
      passive[i] = true;
    }
  }
}

/// What a query has in one block: the terms with postings in it (`active`, in query order),
/// the phrases and the names.
struct Hits<'h, 'i> {
  block: u32,
  terms: &'h [Term<'i>],
  active: &'h [u32],
  plan: &'h [Concept],
  phrases: &'h [Phrase<'i>],
  names: &'h [Named],
}

impl<'h, 'i> Hits<'h, 'i> {
  /// The block's concepts in query order, each with its alternatives (runs of `active`).
  fn concepts(&self) -> impl Iterator<Item = (&'h Concept, impl Iterator<Item = &'h [u32]>)> {
    let (terms, plan) = (self.terms, self.plan);
    self
      .active
      .chunk_by(move |a, b| terms[*a as usize].concept == terms[*b as usize].concept)
      .map(move |concept| {
        let alternatives = concept
          .chunk_by(move |a, b| terms[*a as usize].alternative == terms[*b as usize].alternative);
        (
          &plan[terms[concept[0] as usize].concept as usize],
          alternatives,
        )
      })
  }

  fn term(&self, t: u32) -> &'h Term<'i> {
    &self.terms[t as usize]
  }

  /// Scores the tools of the block into `acc` (all defaults on entry), exactly as the exhaustive
  /// ranking does: concepts in query order, each alternative's best hit, then phrases, then the
  /// name-prefix boost. Returns the postings read and the candidates (a bit per tool).
  fn score(&self, acc: &mut [Acc; BLOCK]) -> (usize, u64) {
    let base = self.block << BLOCK_BITS;
    let slot = |p: &Posting| (p.doc - base) as usize;
    let (mut read, mut candidates) = (0usize, 0u64);
    for (concept, alternatives) in self.concepts() {
      let mut in_concept = 0u64;
      // One alternative (its exact word and prefix extensions share the factor) at a time: each
      // keeps its best hit per tool before the concept adds them up.
      for alternative in alternatives {
        let mut in_alternative = 0u64;
        for term in alternative.iter().map(|&t| self.term(t)) {
          let postings = term.cursor.postings(self.block);
          read += postings.len();
          for p in postings {
            if concept.minor && p.field == Field::Description {
              continue;
            }
            let s = slot(p);
            in_alternative |= 1 << s;
            let a = &mut acc[s];
            a.hit = a.hit.max(p.weight * term.scale);
            a.in_name |= p.field == Field::Name;
          }
        }
        each(in_alternative, |s| {
          let a = &mut acc[s];
          a.sum += a.hit;
          a.best = a.best.max(a.hit);
          a.hit = 0.0;
        });
        in_concept |= in_alternative;
      }
      // More than one way of saying the concept (`gmail_send` for "email": both `gmail` and
      // `send`) is more evidence, with diminishing weight.
      each(in_concept, |s| {
        let a = &mut acc[s];
        let score = (KEEP * a.best + EXTRA * a.sum) * concept.weight;
        if concept.minor {
          a.total += score * MINOR;
        } else {
          a.total += score;
          a.matched += 1;
          a.named += a.in_name as u16;
        }
        a.best = 0.0;
        a.sum = 0.0;
        a.in_name = false;
      });
      candidates |= in_concept;
    }
    for phrase in self.phrases {
      let postings = phrase.cursor.postings(self.block);
      read += postings.len();
      for p in postings {
        acc[slot(p)].total += PHRASE * p.weight * phrase.idf;
      }
    }
    for n in self.names {
      let a = &mut acc[(n.doc - base) as usize];
      candidates |= 1 << (n.doc - base);
      a.exact |= n.exact;
      if let Some(boost) = n.boost {
        a.total += boost;
      }
    }
    (read, candidates)
  }
}
