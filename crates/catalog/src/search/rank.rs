//! Ranking: scores the tools a query's concepts reach (best field, rarity capped per concept,
//! coverage, phrases, name matches) and keeps the top `limit`, best first, ties by id.
//!
//! Documents are numbered in id order (`index.rs`), and a search walks them in that order one
//! block of [`BLOCK`] at a time. For each block it first computes, with the very operations a
//! score takes, a bound from the block's largest weight in every list: every step of a score
//! (max, sums, products of non-negative numbers) only grows with its inputs, in floating point
//! too, so no tool of the block can score above it. Once the top is full, a block whose bound
//! is not above the worst kept score is skipped: its tools come later in id order, so even a
//! tie loses. In a block that is not skipped, each tool is scored exactly as the exhaustive
//! ranking (`reference.rs`) scores it, concept by concept, so results are the same to the bit
//! (`tests.rs` compares them). A word every tool says no longer costs a pass over every tool:
//! when its weights are alike, the first blocks fill the top and the rest are skipped.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::index::{BLOCK, BLOCK_BITS, Block, Field, Posting, SearchIndex};
use super::query::concepts;
use super::text::compact;
use super::weights::{
  EXTRA, KEEP, LEAD, MINOR, NAME_COVER, NAME_PREFIX_BOOST, PHRASE, PREFIX, idf,
};

thread_local! {
  /// The last search's work on this thread: postings read and candidates scored.
  static WORK: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
  /// One bit per document, all clear between uses (the union of a concept's lists).
  static MARKS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Postings read and candidates scored by this thread's last search: a measure of a search's
/// work that does not depend on the machine's speed.
#[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
pub fn last_search_work() -> (usize, usize) {
  WORK.with(Cell::get)
}

/// Term sets whose union sizes are kept per index, at most, and the most terms a kept set has
/// (a prefix that reaches more is counted each time, as the exhaustive ranking does).
const MAX_UNIONS: usize = 4_096;
const MAX_UNION_TERMS: usize = 256;

/// One list a query reads, and where its walk is in the list's blocks.
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

/// One term a query reaches: its concept, its alternative (numbered across the query), its list
/// and its scale. A query's terms are kept in query order: concepts, then alternatives.
struct Term<'i> {
  concept: u32,
  alternative: u32,
  cursor: Cursor<'i>,
  scale: f32,
}

/// One query word.
struct Concept {
  minor: bool,
  weight: f32,
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
      marks[..words].fill(0);
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
    self.search_with(query, limit, true)
  }

  /// [`Self::search`] without skipping: every block a concept reaches is scored (tests).
  #[cfg(test)]
  pub fn search_exhaustive(&self, query: &str, limit: usize) -> Vec<usize> {
    self.search_with(query, limit, false)
  }

  fn search_with(&self, query: &str, limit: usize, skip: bool) -> Vec<usize> {
    let whole = compact(query);
    if whole.is_empty() || limit == 0 {
      WORK.with(|w| w.set((0, 0)));
      return (0..self.docs.min(limit)).collect();
    }
    self
      .rank(query, &whole, limit, skip)
      .into_iter()
      .map(|d| self.external[d as usize] as usize)
      .collect()
  }

  fn rank(&self, query: &str, whole: &str, limit: usize, skip: bool) -> Vec<u32> {
    let mut read = 0usize;
    let mut scored = 0usize;
    let parsed = concepts(query);
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
      alternatives += concept.alternatives().count() as u32;
      // A hit says no more than its concept does: "get" reaches every tool that says get, fetch,
      // load or retrieve, so a rare synonym (`web_fetch`) must not score like a rare word.
      term_ids.clear();
      term_ids.extend(raw.iter().map(|&(_, t, _, _)| t));
      let ceiling = idf(self.docs, self.union_size(&term_ids, &mut read));
      terms.extend(raw.iter().map(|&(alternative, t, factor, exact)| Term {
        concept: c as u32,
        alternative,
        cursor: Cursor::new(&self.words.postings[t], &self.words.blocks[t]),
        scale: factor * self.words.idf[t].min(ceiling) * if exact { 1.0 } else { PREFIX },
      }));
      plan.push(Concept {
        minor: concept.minor,
        weight: if c == 0 { LEAD } else { 1.0 },
      });
    }

    // Phrases: consecutive main query words that are consecutive in a tool's text.
    let mains: Vec<&str> = parsed
      .iter()
      .filter(|c| !c.minor)
      .map(|c| c.word.as_str())
      .collect();
    let mut phrases: Vec<(Cursor, f32)> = Vec::new();
    for pair in mains.windows(2) {
      let (Some(first), Some(second)) = (self.words.get(pair[0]), self.words.get(pair[1])) else {
        continue;
      };
      if let Ok(i) = self
        .pairs
        .binary_search_by_key(&(first as u32, second as u32), |p| p.0)
      {
        let (_, postings, idf) = &self.pairs[i];
        phrases.push((Cursor::new(postings, &self.pair_blocks[i]), *idf));
      }
    }

    // Names that are or start with the whole query: candidates whatever else they match (an
    // exact name ranks first outright; the prefix boost is added last).
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
      .collect();
    named.sort_unstable_by_key(|n| n.doc);
    let mut next_named = 0;

    // Top `limit` by (exact, score, id), kept sorted. Documents come in id order, so a new one
    // goes after every kept one it ties with.
    let better = |x: &(u32, bool, f32), y: &(u32, bool, f32)| {
      y.1
        .cmp(&x.1)
        .then_with(|| y.2.total_cmp(&x.2))
        .then_with(|| x.0.cmp(&y.0))
    };
    let mut top: Vec<(u32, bool, f32)> = Vec::with_capacity(limit + 1);
    let mut acc = [Acc::default(); BLOCK];
    // The terms by the next block they have postings in: a block costs the terms it holds, not
    // every term a prefix reached.
    let mut queue: BinaryHeap<Reverse<(u32, u32)>> = terms
      .iter()
      .enumerate()
      .filter(|(_, t)| t.cursor.next_block() != u32::MAX)
      .map(|(i, t)| Reverse((t.cursor.next_block(), i as u32)))
      .collect();
    let mut active: Vec<u32> = Vec::new();
    loop {
      let block = queue.peek().map_or(u32::MAX, |Reverse((b, _))| *b).min(
        named
          .get(next_named)
          .map_or(u32::MAX, |n| n.doc >> BLOCK_BITS),
      );
      if block == u32::MAX {
        break;
      }
      active.clear();
      while let Some(&Reverse((b, t))) = queue.peek() {
        if b != block {
          break;
        }
        queue.pop();
        active.push(t);
      }
      // Query order: the scores' sums are taken in it.
      active.sort_unstable();
      let in_block = named[next_named..]
        .iter()
        .take_while(|n| n.doc >> BLOCK_BITS == block)
        .count();
      let names = &named[next_named..next_named + in_block];
      next_named += in_block;

      let hits = Hits {
        block,
        terms: &terms,
        active: &active,
        plan: &plan,
        phrases: &phrases,
        names,
      };
      let full = top.len() == limit;
      let passed = skip
        && full
        && !names.iter().any(|n| n.exact)
        && (top[limit - 1].1 || self.bound(&hits, &coverage) <= top[limit - 1].2);
      if !passed {
        let (postings, candidates) = hits.score(&mut acc);
        read += postings;
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
        acc = [Acc::default(); BLOCK];
      }
      for &t in &active {
        let cursor = &mut terms[t as usize].cursor;
        cursor.at += 1;
        if cursor.next_block() != u32::MAX {
          queue.push(Reverse((cursor.next_block(), t)));
        }
      }
      for (cursor, _) in &mut phrases {
        // Phrase lists only add to tools the concepts reach: catch up past this block.
        while cursor.next_block() <= block {
          cursor.at += 1;
        }
      }
    }
    WORK.with(|w| w.set((read, scored)));
    top.into_iter().map(|(d, _, _)| d).collect()
  }

  /// The most any tool of the block can score: the scoring's own steps, on each list's largest
  /// weight in the block, as if every list the block is in hit every tool of it.
  fn bound(&self, hits: &Hits, coverage: &impl Fn(u16) -> f32) -> f32 {
    let (mut total, mut matched, mut named) = (0f32, 0u16, 0u16);
    for (concept, alternatives) in hits.concepts() {
      let (mut best, mut sum, mut seen, mut in_name) = (0f32, 0f32, false, false);
      for alternative in alternatives {
        let (mut hit, mut hit_seen) = (0f32, false);
        for term in alternative.iter().map(|&t| hits.term(t)) {
          let Some(b) = term.cursor.block(hits.block) else {
            continue;
          };
          let weight = if concept.minor { b.titled } else { b.max };
          if weight == 0.0 {
            // A minor word hits no description: none of its postings here count.
            continue;
          }
          hit_seen = true;
          hit = hit.max(weight * term.scale);
          in_name |= b.named;
        }
        if hit_seen {
          seen = true;
          sum += hit;
          best = best.max(hit);
        }
      }
      if seen {
        let score = (KEEP * best + EXTRA * sum) * concept.weight;
        if concept.minor {
          total += score * MINOR;
        } else {
          total += score;
          matched += 1;
          named += in_name as u16;
        }
      }
    }
    for (cursor, idf) in hits.phrases {
      if let Some(b) = cursor.block(hits.block) {
        total += PHRASE * b.max * idf;
      }
    }
    if let Some(boost) = hits.names.iter().filter_map(|n| n.boost).reduce(f32::max) {
      total += boost;
    }
    let fewest = self.block_name_words[hits.block as usize];
    let share = (named as f32 / fewest as f32).min(1.0);
    total * coverage(matched) * (1.0 + NAME_COVER * share)
  }
}

/// What a query has in one block: the terms with postings in it (`active`, in query order),
/// the phrases and the names.
struct Hits<'h, 'i> {
  block: u32,
  terms: &'h [Term<'i>],
  active: &'h [u32],
  plan: &'h [Concept],
  phrases: &'h [(Cursor<'i>, f32)],
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
    for (cursor, idf) in self.phrases {
      let postings = cursor.postings(self.block);
      read += postings.len();
      for p in postings {
        acc[slot(p)].total += PHRASE * p.weight * idf;
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
