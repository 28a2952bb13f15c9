//! TEST ONLY. The exhaustive ranking as it was before `rank.rs` skipped anything: scores every
//! tool a query's concepts reach (best field, rarity capped per concept, coverage, phrases, name
//! matches) in a per-thread scratch, and keeps the top `limit`. Kept, with `KEEP * best + EXTRA *
//! sum` (the form `rank/bounds.rs` bounds) and documents numbered in id order as the index numbers them
//! (ties are still compared as id strings), so that tests can compare the search with it over
//! random queries.

use std::cell::RefCell;

use super::index::{Field, SearchIndex};
use super::query::{Query, read};
use super::weights::{
  EXTRA, KEEP, LEAD, MINOR, NAME_COVER, NAME_PREFIX_BOOST, PHRASE, PREFIX, idf,
};

/// What one query has found out about one document.
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
  concept_seen: bool,
  /// The current alternative: its best hit (a prefix can match several words of one tool).
  hit: f32,
  hit_seen: bool,
  candidate: bool,
  exact: bool,
}

impl SearchIndex {
  /// Number of tools that contain at least one of `terms`: the largest posting list plus the
  /// tools of the others that are not in it (postings are sorted, so a binary search each).
  fn union_size_reference(&self, terms: &[usize], acc: &mut [Acc], marked: &mut Vec<u32>) -> usize {
    let Some(&largest) = terms.iter().max_by_key(|&&t| self.words.postings[t].len()) else {
      return 0;
    };
    let big = &self.words.postings[largest];
    let mut extra = 0;
    for &t in terms.iter().filter(|&&t| t != largest) {
      for p in &self.words.postings[t] {
        let a = &mut acc[p.doc as usize];
        if !a.concept_seen {
          a.concept_seen = true;
          marked.push(p.doc);
          extra += big.binary_search_by_key(&p.doc, |q| q.doc).is_err() as usize;
        }
      }
    }
    for &d in marked.iter() {
      acc[d as usize].concept_seen = false;
    }
    marked.clear();
    big.len() + extra
  }

  /// Document indices ranked for `query`, best first, ties by `tie` (the entry id), at most `limit`.
  pub fn search_reference<'a>(
    &self,
    query: &str,
    limit: usize,
    tie: impl Fn(usize) -> &'a str,
  ) -> Vec<usize> {
    let query = read(query);
    if query.whole.is_empty() || limit == 0 {
      return (0..self.docs.min(limit)).collect();
    }
    // One flat accumulator per document, kept per thread between queries: no hashing, and no
    // fresh quarter-megabyte to fault in for every search of a 10,000-entry catalog.
    thread_local! {
      static SCRATCH: RefCell<Vec<Acc>> = const { RefCell::new(Vec::new()) };
    }
    let mut acc = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    // Every entry a search touches is a candidate and is reset below, so the scratch is all
    // defaults between searches: grow it, never refill it. Refilling cost a pass over every
    // document per search, the one part of a search that grew with the catalog rather than
    // with the query's matches.
    if acc.len() < self.docs {
      acc.resize(self.docs, Acc::default());
    }
    let mut candidates: Vec<u32> = Vec::new();
    let ranked = self.rank_reference(&query, limit, &tie, &mut acc, &mut candidates);
    for &d in &candidates {
      acc[d as usize] = Acc::default();
    }
    SCRATCH.with(|s| *s.borrow_mut() = acc);
    ranked
  }

  fn rank_reference<'a>(
    &self,
    query: &Query,
    limit: usize,
    tie: &impl Fn(usize) -> &'a str,
    acc: &mut [Acc],
    candidates: &mut Vec<u32>,
  ) -> Vec<usize> {
    let (concepts, whole) = (&query.concepts, query.whole.as_str());
    let major = concepts.iter().filter(|c| !c.minor).count();
    let mut terms: Vec<(usize, usize, f32, bool)> = Vec::new();
    let mut term_ids: Vec<usize> = Vec::new();
    let mut in_concept: Vec<u32> = Vec::new();
    let mut in_alternative: Vec<u32> = Vec::new();
    for (c, concept) in concepts.iter().enumerate() {
      // `(alternative, term, factor, exact)` for every word the concept reaches.
      terms.clear();
      for (k, (word, factor)) in concept.alternatives().enumerate() {
        for t in self.words.reached(word, k == 0 && !concept.minor) {
          terms.push((k, t, factor, &*self.words.terms[t] == word));
        }
      }
      // A hit says no more than its concept does: "get" reaches every tool that says get, fetch,
      // load or retrieve, so a rare synonym (`web_fetch`) must not score like a rare word.
      term_ids.clear();
      term_ids.extend(terms.iter().map(|&(_, t, _, _)| t));
      let ceiling = idf(
        self.docs,
        self.union_size_reference(&term_ids, acc, &mut in_concept),
      );
      let mut i = 0;
      while i < terms.len() {
        // One alternative (its exact word and prefix extensions share the factor) at a time:
        // each keeps its best hit per tool before the concept adds them up.
        let k = terms[i].0;
        let end = i + terms[i..].iter().take_while(|x| x.0 == k).count();
        for &(_, t, factor, exact) in &terms[i..end] {
          let scale = factor * self.words.idf[t].min(ceiling) * if exact { 1.0 } else { PREFIX };
          for p in &self.words.postings[t] {
            if concept.minor && p.field == Field::Description {
              continue;
            }
            let a = &mut acc[p.doc as usize];
            if !a.hit_seen {
              a.hit_seen = true;
              in_alternative.push(p.doc);
            }
            a.hit = a.hit.max(p.weight * scale);
            a.in_name |= p.field == Field::Name;
          }
        }
        i = end;
        for &d in &in_alternative {
          let a = &mut acc[d as usize];
          if !a.concept_seen {
            a.concept_seen = true;
            in_concept.push(d);
          }
          a.sum += a.hit;
          a.best = a.best.max(a.hit);
          a.hit = 0.0;
          a.hit_seen = false;
        }
        in_alternative.clear();
      }
      let weight = if c == 0 { LEAD } else { 1.0 };
      for &d in &in_concept {
        let a = &mut acc[d as usize];
        if !a.candidate {
          a.candidate = true;
          candidates.push(d);
        }
        // More than one way of saying the concept (`gmail_send` for "email": both `gmail` and
        // `send`) is more evidence, with diminishing weight.
        let score = (KEEP * a.best + EXTRA * a.sum) * weight;
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
        a.concept_seen = false;
      }
      in_concept.clear();
    }

    // Phrases: consecutive query words that are consecutive in a tool's text.
    let mains: Vec<&str> = concepts
      .iter()
      .filter(|c| !c.minor)
      .map(|c| c.word.as_str())
      .collect();
    // Phrase hits outside the candidates (none are expected, see below) are reset at the end:
    // the scratch must be all defaults between searches.
    let mut strays: Vec<u32> = Vec::new();
    for pair in mains.windows(2) {
      let (Some(first), Some(second)) = (self.words.get(pair[0]), self.words.get(pair[1])) else {
        continue;
      };
      let key = (first as u32, second as u32);
      if let Ok(i) = self.pairs.binary_search_by_key(&key, |p| p.0) {
        let (_, postings, idf) = &self.pairs[i];
        for p in postings {
          // A tool with the pair has both words, so it is a candidate already.
          let a = &mut acc[p.doc as usize];
          if !a.candidate {
            strays.push(p.doc);
          }
          a.total += PHRASE * p.weight * idf;
        }
      }
    }

    // Exact names rank first outright; a name that starts with the query gets a boost.
    let from = self.names.partition_point(|(name, _)| **name < *whole);
    for (name, doc) in &self.names[from..] {
      if !name.starts_with(whole) {
        break;
      }
      let a = &mut acc[*doc as usize];
      if !a.candidate {
        a.candidate = true;
        candidates.push(*doc);
      }
      if **name == *whole {
        a.exact = true;
      } else if whole.len() >= 2 {
        a.total += NAME_PREFIX_BOOST * whole.len() as f32 / name.len() as f32;
      }
    }

    // Top `limit` by (exact, score, id), kept sorted while scanning: nearly every candidate
    // loses to the current worst on score alone, so ids are compared only on true ties.
    let better = |x: &(u32, bool, f32), y: &(u32, bool, f32)| {
      y.1
        .cmp(&x.1)
        .then_with(|| y.2.total_cmp(&x.2))
        .then_with(|| {
          tie(self.external[x.0 as usize] as usize).cmp(tie(self.external[y.0 as usize] as usize))
        })
    };
    let mut top: Vec<(u32, bool, f32)> = Vec::with_capacity(limit + 1);
    for &d in candidates.iter() {
      let a = &acc[d as usize];
      // Coverage squared: missing half the query costs three quarters of the score.
      let coverage = if major == 0 {
        1.0
      } else {
        let share = a.matched as f32 / major as f32;
        share * share
      };
      let names = (a.named as f32 / self.name_words[d as usize].max(1) as f32).min(1.0);
      let score = a.total * coverage * (1.0 + NAME_COVER * names);
      if !a.exact && score <= 0.0 {
        continue;
      }
      let entry = (d, a.exact, score);
      if top.len() == limit && better(&entry, &top[limit - 1]).is_ge() {
        continue;
      }
      let at = top.partition_point(|x| better(x, &entry).is_lt());
      top.insert(at, entry);
      top.truncate(limit);
    }
    for d in strays {
      if !acc[d as usize].candidate {
        acc[d as usize] = Acc::default();
      }
    }
    top
      .into_iter()
      .map(|(d, _, _)| self.external[d as usize] as usize)
      .collect()
  }
}
