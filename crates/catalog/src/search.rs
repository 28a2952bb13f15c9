//! `tools.search` ranking: a small inverted index over name, label and description.
//!
//! Words are split on snake, kebab and camel case, lowercased and stemmed. Each query word becomes
//! a *concept*: the word itself plus a few synonyms (a model says "remind me", the tool says
//! "cron"). A concept scores by the best field it hits in a tool (name over label over
//! description), weighted by how rare the matched word is in the catalog; the sum is scaled by
//! the share of concepts the tool covers, so a tool matching every idea in the query beats one
//! matching a single common word in its name. An exact name match always ranks first, a name
//! prefix gets a boost, and ties break by id.
//!
//! Layout, each module using only those above it: `weights` (tuning constants, idf), `stem`
//! (the stemmer), `text` (text into words), `thesaurus` (stopwords, synonyms, phrases),
//! `query` (a query, bounded, into concepts), `index` (the index and its build), `rank` (scoring and
//! the top `limit`, with max-score pruning).

mod index;
mod query;
mod rank;
mod stem;
mod text;
mod thesaurus;
mod weights;

pub use index::{Doc, SearchIndex};
#[cfg_attr(not(any(test, feature = "testing")), allow(unused_imports))]
pub use query::last_query_work;
pub use query::{MAX_QUERY_CHARS, MAX_QUERY_WORDS, QueryTruncation, TruncationReason};
pub use rank::Ranked;
#[cfg_attr(not(any(test, feature = "testing")), allow(unused_imports))]
pub use rank::last_search_work;

#[cfg(test)]
mod differential;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod shapes;
#[cfg(test)]
mod tests;
