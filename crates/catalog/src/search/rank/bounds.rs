//! Bounds on what a tool can score, computed with the scoring's own steps on the lists' largest
//! weights: the worst kept entry a tool must pass, the split of a query's lists into active and
//! passive ones (MaxScore), and whether any tool of a block may still enter the top (block-max).
//! Separate from scoring (`score.rs`) because a bound only decides what is skipped: it never
//! changes a score.

use super::lists::{Concept, Phrase, Term};
use super::score::{Hits, each};
use crate::search::index::{BLOCK_BITS, Block, SearchIndex};
use crate::search::weights::{EXTRA, KEEP, MINOR, NAME_COVER, PHRASE};

/// The worst entry of a full top: whether it is an exact name, its score, its document.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct Worst {
  pub(super) exact: bool,
  pub(super) score: f32,
  pub(super) doc: u32,
}

impl Worst {
  /// Whether a tool scoring at most `bound`, numbered `first` or later (in id order), may rank
  /// above it (of the same exactness): a tie loses to an earlier id.
  fn passed_by(self, bound: f32, first: u32) -> bool {
    bound > self.score || (bound == self.score && first < self.doc)
  }
}

/// What one concept can add to a tool in a block (or anywhere): its value as a score adds it
/// (a minor concept's already scaled), the tools that have one of its words, and those that have
/// one in their name.
pub(super) struct Reach {
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
  /// Whether a tool of the block may still enter a full top whose worst entry is `worst`. First
  /// from the block's largest weights alone; then tool by tool, from the words each has (the
  /// lists' tool masks), each at the block's largest weight, with the tool's own name words and
  /// boost.
  pub(super) fn may_enter(
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
pub(super) struct Sources {
  pub(super) terms: usize,
  pub(super) phrases: usize,
}

pub(super) enum Source {
  Term(usize),
  Phrase(usize),
  Names,
}

impl Sources {
  pub(super) fn names(self) -> usize {
    self.terms + self.phrases
  }

  pub(super) fn kind(self, i: usize) -> Source {
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
pub(super) struct Split<'s, 'i> {
  pub(super) terms: &'s [Term<'i>],
  pub(super) plan: &'s [Concept],
  pub(super) phrases: &'s [Phrase<'i>],
  pub(super) sources: Sources,
  pub(super) most_boost: Option<f32>,
}

impl Split<'_, '_> {
  /// Marks passive the longest prefix of `order` whose lists together cannot lift a tool
  /// numbered `next` or later above the worst kept entry `worst`, bounded from each list's
  /// largest weight anywhere. (A phrase counts only with both its words' lists: a tool in it is
  /// in theirs.) Behind an exact name every list is passive: only exact names, which the walk
  /// always visits, can still enter.
  #[allow(clippy::too_many_arguments)]
  pub(super) fn passive(
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
