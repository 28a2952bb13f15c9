//! Scoring the tools of one block, exactly as the exhaustive ranking (`reference.rs`) scores
//! them: concepts in query order, each alternative's best hit, then phrases, then the
//! name-prefix boost. Separate from the walk (`rank.rs`) and the bounds (`bounds.rs`) because it
//! is the one place a score is made.

use super::lists::{Concept, Named, Phrase, Term};
use crate::search::index::{BLOCK, BLOCK_BITS, Field, Posting};
use crate::search::weights::{EXTRA, KEEP, MINOR, PHRASE};

/// What one query has found out about one document of the current block.
#[derive(Clone, Copy, Default)]
pub(super) struct Acc {
  /// Score so far, before coverage.
  pub(super) total: f32,
  /// Major concepts matched, and how many of them hit the name.
  pub(super) matched: u16,
  pub(super) named: u16,
  /// The current concept: its best alternative, the sum over alternatives, a name hit.
  best: f32,
  sum: f32,
  in_name: bool,
  /// The current alternative's best hit (a prefix can match several words of one tool).
  hit: f32,
  pub(super) exact: bool,
}

/// The documents of a block set in `mask`, in order.
pub(super) fn each(mut mask: u64, mut f: impl FnMut(usize)) {
  while mask != 0 {
    f(mask.trailing_zeros() as usize);
    mask &= mask - 1;
  }
}

/// What a query has in one block: the terms with postings in it (`active`, in query order),
/// the phrases and the names.
pub(super) struct Hits<'h, 'i> {
  pub(super) block: u32,
  pub(super) terms: &'h [Term<'i>],
  pub(super) active: &'h [u32],
  pub(super) plan: &'h [Concept],
  pub(super) phrases: &'h [Phrase<'i>],
  pub(super) names: &'h [Named],
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

  pub(super) fn term(&self, t: u32) -> &'h Term<'i> {
    &self.terms[t as usize]
  }

  /// Scores the tools of the block into `acc` (all defaults on entry), exactly as the exhaustive
  /// ranking does: concepts in query order, each alternative's best hit, then phrases, then the
  /// name-prefix boost. Returns the postings read and the candidates (a bit per tool).
  pub(super) fn score(&self, acc: &mut [Acc; BLOCK]) -> (usize, u64) {
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
