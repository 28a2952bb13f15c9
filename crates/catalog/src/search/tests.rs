//! Tests of the search, one file per subject:
//! - `tests/words.rs`: tokenizing, stemming, the thesaurus (synonyms, phrases, stopwords);
//! - `tests/ranking.rs`: ranking on small fixtures and on the ranking test sets;
//! - `tests/pruning.rs`: the pruned search against the exhaustive ranking, and its work;
//! - `tests/query_caps.rs`: a query read to its caps and no further;
//! - `tests/bench.rs`: ignored benchmarks (numbers only).

mod bench;
mod pruning;
mod query_caps;
mod ranking;
mod words;

use super::index::{Doc, SearchIndex};

/// The index of a synthetic catalog (`shapes.rs`).
fn shape_index(tools: &[super::shapes::Tool]) -> SearchIndex {
  SearchIndex::build(tools.iter().map(|t| Doc {
    id: &t.id,
    name: &t.name,
    label: t.label.as_deref(),
    description: &t.description,
  }))
}
