//! Query reading: each query word becomes a [`Concept`], the word plus the synonyms that may
//! stand for it, with two-word phrases read as one and stopwords marked minor.

use super::text::words;
use super::thesaurus::{is_stopword, thesaurus};
use super::weights::SYNONYM;

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

pub(super) fn concepts(query: &str) -> Vec<Concept> {
  let raw = words(query);
  let thesaurus = thesaurus();
  let mut out: Vec<Concept> = Vec::new();
  let mut i = 0;
  while i < raw.len() {
    let word = raw[i].as_str();
    let next = raw.get(i + 1).map(String::as_str);
    let phrase = thesaurus
      .phrases
      .iter()
      .find(|(first, second, _)| first == word && Some(second.as_str()) == next);
    let synonyms: &[String] = match phrase {
      Some((_, _, list)) => {
        i += 1;
        list
      }
      None => thesaurus.expansions.get(word).map_or(&[], Vec::as_slice),
    };
    i += 1;
    if out.iter().any(|c| c.word == word) {
      continue;
    }
    out.push(Concept {
      word: word.to_string(),
      synonyms: synonyms.to_vec(),
      minor: phrase.is_none() && is_stopword(word),
    });
  }
  // "create a new file": `new` is already its own concept, so `create` must not also score
  // through it (and the other way round), or every `create_*` tool would count twice.
  let mains: Vec<String> = out.iter().map(|c| c.word.clone()).collect();
  for concept in &mut out {
    concept.synonyms.retain(|w| !mains.contains(w));
  }
  out
}
