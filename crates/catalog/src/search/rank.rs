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
//!
//! This file holds the search and its walk; the rest is split by concern:
//! - `rank/lists.rs`: the lists a query reads (terms, phrases, names) and their cursors;
//! - `rank/score.rs`: scoring a block's tools, exactly as the exhaustive ranking does;
//! - `rank/bounds.rs`: the bounds that let the walk pass over lists and blocks (the worst kept
//!   entry, the passive lists, a block's best case).

mod bounds;
mod lists;
mod score;

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::index::{BLOCK, BLOCK_BITS, SearchIndex};
use super::query::{QueryTruncation, read};
use super::weights::NAME_COVER;
use bounds::{Reach, Source, Sources, Split, Worst};
use lists::Lists;
use score::{Acc, Hits, each};

thread_local! {
  /// The last search's work on this thread: postings read, candidates scored, blocks visited.
  static WORK: Cell<(usize, usize, usize)> = const { Cell::new((0, 0, 0)) };
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

/// Blocks scored before the walk, at most: those of exact names, then of the strongest name
/// prefixes. The tools whose whole name the query says are the likeliest top, and their
/// neighbours in id order are often their siblings; a top filled from them early lets the walk
/// skip most of the rest.
const SEEDS: usize = 4;

/// A search's result: positions in the list the index was built from, best first, and whether
/// only the first part of the query was searched.
pub struct Ranked {
  pub hits: Vec<usize>,
  pub truncated: Option<QueryTruncation>,
  /// The searched part has no word: `hits` is the first `limit` in the given order, not a
  /// ranking.
  pub wordless: bool,
}

impl SearchIndex {
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
        wordless: query.whole.is_empty(),
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
      wordless: false,
    }
  }

  fn rank(&self, query: &super::query::Query, limit: usize, skip: bool) -> Vec<u32> {
    let (mut read, mut scored, mut visited) = (0usize, 0usize, 0usize);
    let parsed = &query.concepts;
    let major = parsed.iter().filter(|c| !c.minor).count();
    let coverage = |matched: u16| {
      if major == 0 {
        1.0
      } else {
        let share = matched as f32 / major as f32;
        share * share
      }
    };

    let Lists {
      plan,
      mut terms,
      mut phrases,
      named,
      exact_blocks,
      most_boost,
    } = self.lists(query, &mut read);
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
}
