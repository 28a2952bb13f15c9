//! Text into words: splitting on snake, kebab and camel case, lowercasing and stemming, and the
//! compact form of a whole name (`web_search` → `websearch`).

use super::stem::stem;

/// Splits text into lowercased, stemmed words (camelCase, snake_case and kebab-case aware).
pub fn words(text: &str) -> Vec<String> {
  let mut out = Vec::new();
  split(text, false, |word, _| out.push(word));
  out
}

/// [`words`], each with the byte offset just past its last character in `text` (where a query
/// cut after it ends).
pub(super) fn words_with_ends(text: &str) -> Vec<(String, usize)> {
  let mut out = Vec::new();
  split(text, false, |word, end| out.push((word, end)));
  out
}

/// [`words`], plus the joined form of every camel-cased run (`OpenClaw` → `open`, `claw`,
/// `openclaw`), so a query that writes the brand as one word still finds it. Index side only:
/// on the query side the extra word would be one more concept to cover.
pub(super) fn index_words(text: &str) -> Vec<String> {
  let mut out = Vec::new();
  split(text, true, |word, _| out.push(word));
  out
}

/// One pass over `text`, each word to `emit` with its end offset as it completes.
fn split(text: &str, joined: bool, mut emit: impl FnMut(String, usize)) {
  let mut current = String::new();
  let mut run = String::new();
  let mut parts = 0;
  let mut prev: Option<char> = None;
  let mut chars = text.char_indices().peekable();
  let mut flush = |current: &mut String, end: usize| -> usize {
    if current.is_empty() {
      return 0;
    }
    emit(stem(current), end);
    current.clear();
    1
  };
  while let Some((at, ch)) = chars.next() {
    if !ch.is_alphanumeric() {
      parts += flush(&mut current, at);
      if joined && parts > 1 {
        flush(&mut run, at);
      }
      run.clear();
      parts = 0;
      prev = None;
      continue;
    }
    if let Some(p) = prev {
      let next_is_lower = chars.peek().is_some_and(|(_, c)| c.is_lowercase());
      let camel = p.is_lowercase() && ch.is_uppercase();
      let acronym_end = p.is_uppercase() && ch.is_uppercase() && next_is_lower;
      let digit_edge = p.is_ascii_digit() != ch.is_ascii_digit();
      if camel || acronym_end || digit_edge {
        parts += flush(&mut current, at);
      }
    }
    push_lower(&mut current, ch);
    if joined {
      push_lower(&mut run, ch);
    }
    prev = Some(ch);
  }
  parts += flush(&mut current, text.len());
  if joined && parts > 1 {
    flush(&mut run, text.len());
  }
}

fn push_lower(to: &mut String, ch: char) {
  if ch.is_ascii() {
    to.push(ch.to_ascii_lowercase());
  } else {
    to.extend(ch.to_lowercase());
  }
}

pub(super) fn compact(text: &str) -> String {
  text
    .chars()
    .filter(|c| c.is_alphanumeric())
    .flat_map(char::to_lowercase)
    .collect()
}
