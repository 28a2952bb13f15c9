//! Query reading: each query word becomes a [`Concept`], the word plus the synonyms that may
//! stand for it, with two-word phrases read as one and stopwords marked minor.
//!
//! A query is bounded before anything else reads it: at most [`MAX_QUERY_CHARS`] characters
//! (cut back to a word boundary) and [`MAX_QUERY_WORDS`] distinct words. Past either cap the
//! first part is searched and the result says so ([`QueryTruncation`]); nothing fails. Reading
//! costs the characters up to the cap, however long the query is.

use std::cell::Cell;
use std::collections::HashSet;

use super::text::{compact, words_with_ends};
use super::thesaurus::{is_stopword, thesaurus};
use super::weights::SYNONYM;

/// The most characters of a query a search reads (upstream bounds a batch query at 512).
pub const MAX_QUERY_CHARS: usize = 512;
/// The most distinct words (concepts; a two-word phrase is one) a search looks up.
pub const MAX_QUERY_WORDS: usize = 32;

thread_local! {
  /// Characters the last query read on this thread looked at (tests: a query past the cap costs
  /// what the cap does).
  static READ: Cell<usize> = const { Cell::new(0) };
}

/// Characters of its query the last search on this thread looked at.
#[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
pub fn last_query_work() -> usize {
  READ.with(Cell::get)
}

/// Why a query was not searched whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruncationReason {
  /// Longer than [`MAX_QUERY_CHARS`] characters.
  Chars,
  /// More than [`MAX_QUERY_WORDS`] distinct words.
  Words,
}

impl TruncationReason {
  pub fn as_str(self) -> &'static str {
    match self {
      TruncationReason::Chars => "chars",
      TruncationReason::Words => "words",
    }
  }
}

/// A query over a cap: only `searched`, its first part, was searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTruncation {
  /// The part of the query that was searched: its beginning, ending at a word boundary (at most
  /// [`MAX_QUERY_CHARS`] characters).
  pub searched: String,
  pub reason: TruncationReason,
}

impl QueryTruncation {
  /// One sentence for the model: what was searched and why.
  pub fn message(&self) -> String {
    let why = match self.reason {
      TruncationReason::Chars => format!("over {MAX_QUERY_CHARS} characters"),
      TruncationReason::Words => format!("over {MAX_QUERY_WORDS} distinct words"),
    };
    format!(
      "The query was {why}; only its first part was searched: {:?}. Search with a shorter query.",
      self.searched
    )
  }
}

/// `{ searched, reason, message }`: how guests and the structured tools report it.
impl serde::Serialize for QueryTruncation {
  fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut s = serializer.serialize_struct("QueryTruncation", 3)?;
    s.serialize_field("searched", &self.searched)?;
    s.serialize_field("reason", self.reason.as_str())?;
    s.serialize_field("message", &self.message())?;
    s.end()
  }
}

/// One idea of the query: its own word and the words that may stand for it.
pub(super) struct Concept {
  pub(super) word: String,
  /// Scored at [`SYNONYM`].
  synonyms: Vec<String>,
  /// A stopword: only counts when it is a word of a tool's name or label, and never towards
  /// coverage.
  pub(super) minor: bool,
}

impl Concept {
  /// `(word, factor)`: the query word at 1.0, then its synonyms.
  pub(super) fn alternatives(&self) -> impl Iterator<Item = (&str, f32)> {
    std::iter::once((self.word.as_str(), 1.0))
      .chain(self.synonyms.iter().map(|w| (w.as_str(), SYNONYM)))
  }
}

/// A query as a search reads it.
pub(super) struct Query {
  pub(super) concepts: Vec<Concept>,
  /// The searched part, compacted (`web_search` → `websearch`): what names are matched against.
  pub(super) whole: String,
  pub(super) truncated: Option<QueryTruncation>,
}

/// The first [`MAX_QUERY_CHARS`] characters of `query`, cut back to the last word boundary when
/// that would split a word (unless the part is one word); and whether anything was left out.
/// Looks at no more than the cap and one character past it.
fn bounded(query: &str) -> (&str, bool) {
  let mut chars = query.char_indices();
  let read = chars.by_ref().take(MAX_QUERY_CHARS).count();
  let next = chars.next();
  READ.with(|r| r.set(read + next.is_some() as usize));
  let Some((end, next)) = next else {
    return (query, false);
  };
  let part = &query[..end];
  let splits_word =
    next.is_alphanumeric() && part.chars().next_back().is_some_and(char::is_alphanumeric);
  match part.rfind(|c: char| !c.is_alphanumeric()) {
    Some(boundary) if splits_word => (&query[..boundary], true),
    _ => (part, true),
  }
}

pub(super) fn read(query: &str) -> Query {
  let (part, cut) = bounded(query);
  let raw = words_with_ends(part);
  let thesaurus = thesaurus();
  let mut out: Vec<Concept> = Vec::new();
  let mut seen: HashSet<&str> = HashSet::new();
  // Where the searched part ends (past the last word taken) when the word cap stops the read.
  let mut words_end = None;
  let mut i = 0;
  while i < raw.len() {
    let word = raw[i].0.as_str();
    let next = raw.get(i + 1).map(|(w, _)| w.as_str());
    let phrase = thesaurus
      .phrases
      .iter()
      .find(|(first, second, _)| first == word && Some(second.as_str()) == next);
    let width = if phrase.is_some() { 2 } else { 1 };
    if seen.contains(word) {
      i += width;
      continue;
    }
    if out.len() == MAX_QUERY_WORDS {
      words_end = Some(raw[i - 1].1);
      break;
    }
    let synonyms: &[String] = match phrase {
      Some((_, _, list)) => list,
      None => thesaurus.expansions.get(word).map_or(&[], Vec::as_slice),
    };
    seen.insert(word);
    out.push(Concept {
      word: word.to_string(),
      synonyms: synonyms.to_vec(),
      minor: phrase.is_none() && is_stopword(word),
    });
    i += width;
  }
  // "create a new file": `new` is already its own concept, so `create` must not also score
  // through it (and the other way round), or every `create_*` tool would count twice.
  for concept in &mut out {
    concept.synonyms.retain(|w| !seen.contains(w.as_str()));
  }
  let (searched, truncated) = match words_end {
    Some(end) => (&part[..end], Some(TruncationReason::Words)),
    None => (part, cut.then_some(TruncationReason::Chars)),
  };
  Query {
    concepts: out,
    whole: compact(searched),
    truncated: truncated.map(|reason| QueryTruncation {
      searched: searched.trim_end().to_string(),
      reason,
    }),
  }
}

/// The concepts of `query` (tests).
#[cfg(test)]
pub(super) fn concepts(query: &str) -> Vec<Concept> {
  read(query).concepts
}
