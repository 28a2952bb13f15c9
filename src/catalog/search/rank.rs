//! Ranking: scores the tools a query's concepts reach (best field, rarity capped per concept,
//! coverage, phrases, name matches) in a per-thread scratch, and keeps the top `limit`.
//!
//! Top-k pruning (max-score style): every concept has an upper bound on what it can add to a
//! tool's score (its terms' largest posting weights), so the concepts from `c` on bound the
//! score of a tool that none of the earlier concepts reached, coverage and name share
//! included. Once that bound is below the `limit`-th best score the candidates so far are sure
//! to reach (a lower bound: scores only grow as concepts are added), no new tool can make the
//! top any more: the remaining concepts only update the candidates (walking their postings
//! without creating candidates, or looking each candidate up when there are few). Concepts are
//! still added in query order, so every score is the exhaustive ranking's to the bit and the
//! results are the same (`tests.rs` compares with `reference.rs`). A word every tool says
//! ("team" in the bench's catalog) no longer makes every tool a candidate to score.

use std::cell::{Cell, RefCell};

use super::index::{Field, Posting, SearchIndex};
use super::query::concepts;
use super::text::compact;
use super::weights::{
  EXTRA, LEAD, MIN_PREFIX, MINOR, NAME_COVER, NAME_PREFIX_BOOST, PHRASE, PREFIX, idf,
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

/// Everything a search fills, kept per thread between searches: no fresh pages to fault in
/// (a 10,000-entry catalog's lists are tens of kilobytes each) and no allocation per search.
struct Scratch {
  acc: Vec<Acc>,
  candidates: Vec<u32>,
  in_concept: Vec<u32>,
  in_alternative: Vec<u32>,
  strays: Vec<u32>,
  lower: Vec<f32>,
}

thread_local! {
  static SCRATCH: RefCell<Scratch> = const {
    RefCell::new(Scratch {
      acc: Vec::new(),
      candidates: Vec::new(),
      in_concept: Vec::new(),
      in_alternative: Vec::new(),
      strays: Vec::new(),
      lower: Vec::new(),
    })
  };
  /// The last search's work on this thread: postings read and candidates scored.
  static WORK: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// Postings read (walked or looked up) and candidates scored by this thread's last search: a
/// measure of a search's work that does not depend on the machine's speed.
#[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
pub fn last_search_work() -> (usize, usize) {
  WORK.with(Cell::get)
}

/// Headroom on the pruning bound for f32 rounding (sums of the same terms in another order).
const SLACK: f32 = 1.0 + 1e-4;

/// One query word's plan: the terms it reaches with their scale, and its score bound.
struct Plan {
  /// `(alternative, term, scale)`, alternatives in order.
  terms: Vec<(usize, usize, f32)>,
  minor: bool,
  weight: f32,
}

impl SearchIndex {
  /// Terms `word` reaches: itself and, when `prefix` and long enough, the words it begins.
  fn reached<'q>(&'q self, word: &'q str, prefix: bool) -> impl Iterator<Item = usize> + 'q {
    let prefix = prefix && word.len() >= MIN_PREFIX;
    let start = self.words.lower_bound(word);
    (start..self.words.terms.len()).take_while(move |&t| {
      let term = &*self.words.terms[t];
      term == word || (prefix && term.starts_with(word))
    })
  }

  /// Number of tools that contain at least one of `terms`: the largest posting list plus the
  /// tools of the others that are not in it (postings are sorted, so a binary search each), or,
  /// when the others are long too, every list marked once.
  fn union_size(&self, terms: &[usize], acc: &mut [Acc], marked: &mut Vec<u32>) -> usize {
    let Some(&largest) = terms.iter().max_by_key(|&&t| self.words.postings[t].len()) else {
      return 0;
    };
    let big = &self.words.postings[largest];
    let others: usize = terms
      .iter()
      .filter(|&&t| t != largest)
      .map(|&t| self.words.postings[t].len())
      .sum();
    if others == 0 {
      return big.len();
    }
    let log = (usize::BITS - big.len().leading_zeros()) as usize;
    let mut count = 0;
    if others * log > 2 * (others + big.len()) {
      for &t in terms {
        for p in &self.words.postings[t] {
          let a = &mut acc[p.doc as usize];
          if !a.concept_seen {
            a.concept_seen = true;
            marked.push(p.doc);
          }
        }
      }
      count = marked.len();
    } else {
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
      count += big.len() + extra;
    }
    for &d in marked.iter() {
      acc[d as usize].concept_seen = false;
    }
    marked.clear();
    count
  }

  /// Document indices ranked for `query`, best first, ties by `tie` (the entry id), at most `limit`.
  pub fn search<'a>(
    &self,
    query: &str,
    limit: usize,
    tie: impl Fn(usize) -> &'a str,
  ) -> Vec<usize> {
    self.search_with(query, limit, tie, true)
  }

  /// [`Self::search`] without pruning: every tool a concept reaches is scored (tests).
  #[cfg(test)]
  pub fn search_exhaustive<'a>(
    &self,
    query: &str,
    limit: usize,
    tie: impl Fn(usize) -> &'a str,
  ) -> Vec<usize> {
    self.search_with(query, limit, tie, false)
  }

  fn search_with<'a>(
    &self,
    query: &str,
    limit: usize,
    tie: impl Fn(usize) -> &'a str,
    prune: bool,
  ) -> Vec<usize> {
    let whole = compact(query);
    if whole.is_empty() || limit == 0 {
      WORK.with(|w| w.set((0, 0)));
      return (0..self.docs.min(limit)).collect();
    }
    // One flat accumulator per document, kept per thread between queries: no hashing, and no
    // fresh quarter-megabyte to fault in for every search of a 10,000-entry catalog.
    let mut scratch = SCRATCH.with(|s| {
      std::mem::replace(
        &mut *s.borrow_mut(),
        Scratch {
          acc: Vec::new(),
          candidates: Vec::new(),
          in_concept: Vec::new(),
          in_alternative: Vec::new(),
          strays: Vec::new(),
          lower: Vec::new(),
        },
      )
    });
    // Every entry a search touches is a candidate or a stray and is reset below, so the
    // scratch is all defaults between searches: grow it, never refill it.
    if scratch.acc.len() < self.docs {
      scratch.acc.resize(self.docs, Acc::default());
    }
    let ranked = self.rank(query, &whole, limit, &tie, &mut scratch, prune);
    for &d in &scratch.candidates {
      scratch.acc[d as usize] = Acc::default();
    }
    scratch.candidates.clear();
    SCRATCH.with(|s| *s.borrow_mut() = scratch);
    ranked
  }

  fn rank<'a>(
    &self,
    query: &str,
    whole: &str,
    limit: usize,
    tie: &impl Fn(usize) -> &'a str,
    s: &mut Scratch,
    prune: bool,
  ) -> Vec<usize> {
    let Scratch {
      acc,
      candidates,
      in_concept,
      in_alternative,
      strays,
      lower,
    } = s;
    let acc = &mut acc[..];
    let mut read = 0usize;
    let concepts = concepts(query);
    let major = concepts.iter().filter(|c| !c.minor).count();
    let coverage = |matched: u16| {
      if major == 0 {
        1.0
      } else {
        let share = matched as f32 / major as f32;
        share * share
      }
    };

    // Each concept's terms and their scale, and a bound on the concept's score.
    let mut plans: Vec<Plan> = Vec::with_capacity(concepts.len());
    let mut bounds: Vec<f32> = Vec::with_capacity(concepts.len());
    let mut term_ids: Vec<usize> = Vec::new();
    for (c, concept) in concepts.iter().enumerate() {
      let mut raw: Vec<(usize, usize, f32, bool)> = Vec::new();
      for (k, (word, factor)) in concept.alternatives().enumerate() {
        for t in self.reached(word, k == 0 && !concept.minor) {
          raw.push((k, t, factor, &*self.words.terms[t] == word));
        }
      }
      // A hit says no more than its concept does: "get" reaches every tool that says get, fetch,
      // load or retrieve, so a rare synonym (`web_fetch`) must not score like a rare word.
      term_ids.clear();
      term_ids.extend(raw.iter().map(|&(_, t, _, _)| t));
      let ceiling = idf(self.docs, self.union_size(&term_ids, acc, in_concept));
      read += raw
        .iter()
        .map(|&(_, t, _, _)| self.words.postings[t].len())
        .sum::<usize>();
      let terms: Vec<(usize, usize, f32)> = raw
        .iter()
        .map(|&(k, t, factor, exact)| {
          let scale = factor * self.words.idf[t].min(ceiling) * if exact { 1.0 } else { PREFIX };
          (k, t, scale)
        })
        .collect();
      let weight = if c == 0 { LEAD } else { 1.0 };
      // The concept scores (1 - EXTRA) * best + EXTRA * sum over its alternatives' best hits.
      let (mut best, mut sum, mut alt, mut alt_max) = (0f32, 0f32, usize::MAX, 0f32);
      for &(k, t, scale) in &terms {
        if k != alt {
          sum += alt_max;
          best = best.max(alt_max);
          alt = k;
          alt_max = 0.0;
        }
        alt_max = alt_max.max(scale * self.words.max_weight[t]);
      }
      sum += alt_max;
      best = best.max(alt_max);
      let bound = ((1.0 - EXTRA) * best + EXTRA * sum) * weight;
      bounds.push(if concept.minor { bound * MINOR } else { bound });
      plans.push(Plan {
        terms,
        minor: concept.minor,
        weight,
      });
    }

    // Phrases: consecutive main query words that are consecutive in a tool's text. A phrase
    // needs both words, so it bounds only the tools both concepts can reach.
    let main_index: Vec<usize> = (0..concepts.len())
      .filter(|&c| !concepts[c].minor)
      .collect();
    let mut phrases: Vec<(usize, usize)> = Vec::new(); // (pair index, first concept)
    for w in main_index.windows(2) {
      let (Some(first), Some(second)) = (
        self.words.get(&concepts[w[0]].word),
        self.words.get(&concepts[w[1]].word),
      ) else {
        continue;
      };
      if let Ok(i) = self
        .pairs
        .binary_search_by_key(&(first as u32, second as u32), |p| p.0)
      {
        phrases.push((i, w[0]));
      }
    }
    // The bound on the score of a tool that only concepts `c..` reach.
    let mut suffix = vec![0f32; concepts.len() + 1];
    let mut suffix_major = vec![0u16; concepts.len() + 1];
    for c in (0..concepts.len()).rev() {
      let phrase: f32 = phrases
        .iter()
        .filter(|&&(_, first)| first == c)
        .map(|&(i, _)| PHRASE * self.pair_max[i] * self.pairs[i].2)
        .sum();
      suffix[c] = suffix[c + 1] + bounds[c] + phrase;
      suffix_major[c] = suffix_major[c + 1] + !concepts[c].minor as u16;
    }
    let bound_from = |c: usize| suffix[c] * coverage(suffix_major[c]) * (1.0 + NAME_COVER) * SLACK;

    // Names that are or start with the whole query are candidates from the start (an exact
    // name ranks first outright; the prefix boost is added last, as it always was).
    let from = self.names.partition_point(|(name, _)| **name < *whole);
    let named_range = from
      ..from
        + self.names[from..]
          .iter()
          .take_while(|(name, _)| name.starts_with(whole))
          .count();
    for (name, doc) in &self.names[named_range.clone()] {
      let a = &mut acc[*doc as usize];
      if !a.candidate {
        a.candidate = true;
        candidates.push(*doc);
      }
      a.exact |= **name == *whole;
    }

    // Postings of the concepts from `c` on: pruning can save at most those, so a lower bound
    // pass over the candidates is only worth it while they outnumber the candidates.
    let mut remaining: usize = plans
      .iter()
      .flat_map(|p| &p.terms)
      .map(|&(_, t, _)| self.words.postings[t].len())
      .sum();
    let mut only_candidates = false;
    for (c, plan) in plans.iter().enumerate() {
      if prune && !only_candidates && c > 0 && remaining > 2 * candidates.len() {
        let bound = bound_from(c);
        only_candidates = bound <= 0.0
          || (candidates.len() >= limit && {
            lower.clear();
            for &d in candidates.iter() {
              let a = &acc[d as usize];
              let names = (a.named as f32 / self.name_words[d as usize].max(1) as f32).min(1.0);
              let score = if a.exact {
                f32::INFINITY
              } else {
                a.total * coverage(a.matched) * (1.0 + NAME_COVER * names)
              };
              if score > 0.0 {
                lower.push(score);
              }
            }
            lower.len() >= limit && {
              let (_, kth, _) = lower.select_nth_unstable_by(limit - 1, |x, y| y.total_cmp(x));
              bound < *kth
            }
          });
      }
      remaining -= plan
        .terms
        .iter()
        .map(|&(_, t, _)| self.words.postings[t].len())
        .sum::<usize>();
      // One term (the usual case: a word without synonyms or prefix extensions in the
      // catalog): each tool is in its list once, so the concept's score is that posting's, added
      // in one pass. The same arithmetic as below, to the bit.
      if let [(_, t, scale)] = plan.terms[..] {
        let postings = &self.words.postings[t];
        let add = |p: &Posting, a: &mut Acc, candidates: &mut Vec<u32>| {
          if plan.minor && p.field == Field::Description {
            return;
          }
          if !a.candidate {
            a.candidate = true;
            candidates.push(p.doc);
          }
          let hit = 0f32.max(p.weight * scale);
          let (sum, best) = (0.0 + hit, 0f32.max(hit));
          let score = (best + EXTRA * (sum - best)) * plan.weight;
          if plan.minor {
            a.total += score * MINOR;
          } else {
            a.total += score;
            a.matched += 1;
            a.named += (p.field == Field::Name) as u16;
          }
        };
        if !only_candidates {
          for p in postings {
            add(p, &mut acc[p.doc as usize], candidates);
          }
        } else if candidates.len() * 16 < postings.len() {
          read -= postings.len();
          read += candidates.len();
          let mut none = Vec::new();
          for &d in candidates.iter() {
            if let Ok(j) = postings.binary_search_by_key(&d, |q| q.doc) {
              add(&postings[j], &mut acc[d as usize], &mut none);
            }
          }
        } else {
          for p in postings {
            let a = &mut acc[p.doc as usize];
            if a.candidate {
              add(p, a, candidates);
            }
          }
        }
        continue;
      }
      let mut i = 0;
      while i < plan.terms.len() {
        // One alternative (its exact word and prefix extensions share the factor) at a time:
        // each keeps its best hit per tool before the concept adds them up.
        let k = plan.terms[i].0;
        let end = i + plan.terms[i..].iter().take_while(|x| x.0 == k).count();
        // An alternative of one term meets each tool once: its hit goes to the concept at once
        // (the same arithmetic as the pass over `in_alternative` below).
        let single = end - i == 1;
        for &(_, t, scale) in &plan.terms[i..end] {
          let postings = &self.words.postings[t];
          let mut hit = |p: &Posting, acc: &mut [Acc]| {
            if plan.minor && p.field == Field::Description {
              return;
            }
            let a = &mut acc[p.doc as usize];
            if single {
              if !a.concept_seen {
                a.concept_seen = true;
                in_concept.push(p.doc);
              }
              let hit = 0f32.max(p.weight * scale);
              a.sum += hit;
              a.best = a.best.max(hit);
              a.in_name |= p.field == Field::Name;
              return;
            }
            if !a.hit_seen {
              a.hit_seen = true;
              in_alternative.push(p.doc);
            }
            a.hit = a.hit.max(p.weight * scale);
            a.in_name |= p.field == Field::Name;
          };
          if !only_candidates {
            for p in postings {
              hit(p, acc);
            }
          } else if candidates.len() * 16 < postings.len() {
            // Few candidates, a long list: look each one up.
            read -= postings.len();
            read += candidates.len();
            for &d in candidates.iter() {
              if let Ok(j) = postings.binary_search_by_key(&d, |q| q.doc) {
                hit(&postings[j], acc);
              }
            }
          } else {
            for p in postings {
              if acc[p.doc as usize].candidate {
                hit(p, acc);
              }
            }
          }
        }
        i = end;
        for &d in in_alternative.iter() {
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
      for &d in in_concept.iter() {
        let a = &mut acc[d as usize];
        if !a.candidate {
          a.candidate = true;
          candidates.push(d);
        }
        // More than one way of saying the concept (`gmail_send` for "email": both `gmail` and
        // `send`) is more evidence, with diminishing weight.
        let score = (a.best + EXTRA * (a.sum - a.best)) * plan.weight;
        if plan.minor {
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

    // Phrase hits outside the candidates (pruned tools) are reset at the end: the scratch must
    // be all defaults between searches.
    for &(i, _) in &phrases {
      let (_, postings, idf) = &self.pairs[i];
      read += postings.len();
      for p in postings {
        let a = &mut acc[p.doc as usize];
        if !a.candidate {
          strays.push(p.doc);
        }
        a.total += PHRASE * p.weight * idf;
      }
    }

    // A name that starts with the query gets a boost.
    for (name, doc) in &self.names[named_range] {
      if **name != *whole && whole.len() >= 2 {
        acc[*doc as usize].total += NAME_PREFIX_BOOST * whole.len() as f32 / name.len() as f32;
      }
    }

    // Top `limit` by (exact, score, id), kept sorted while scanning: nearly every candidate
    // loses to the current worst on score alone, so ids are compared only on true ties.
    let better = |x: &(u32, bool, f32), y: &(u32, bool, f32)| {
      y.1
        .cmp(&x.1)
        .then_with(|| y.2.total_cmp(&x.2))
        .then_with(|| tie(x.0 as usize).cmp(tie(y.0 as usize)))
    };
    let mut top: Vec<(u32, bool, f32)> = Vec::with_capacity(limit + 1);
    for &d in candidates.iter() {
      let a = &acc[d as usize];
      // Coverage squared: missing half the query costs three quarters of the score.
      let names = (a.named as f32 / self.name_words[d as usize].max(1) as f32).min(1.0);
      let score = a.total * coverage(a.matched) * (1.0 + NAME_COVER * names);
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
    for &d in strays.iter() {
      if !acc[d as usize].candidate {
        acc[d as usize] = Acc::default();
      }
    }
    strays.clear();
    WORK.with(|w| w.set((read, candidates.len())));
    top.into_iter().map(|(d, _, _)| d as usize).collect()
  }
}
