//! Text into words: splitting on snake, kebab and camel case, lowercasing and stemming, and the
//! compact form of a whole name (`web_search` → `websearch`).

use super::stem::stem;

/// Splits text into lowercased, stemmed words (camelCase, snake_case and kebab-case aware).
pub fn words(text: &str) -> Vec<String> {
  split(text, false)
}

/// [`words`], plus the joined form of every camel-cased run (`OpenClaw` → `open`, `claw`,
/// `openclaw`), so a query that writes the brand as one word still finds it. Index side only:
/// on the query side the extra word would be one more concept to cover.
pub(super) fn index_words(text: &str) -> Vec<String> {
  split(text, true)
}

fn split(text: &str, joined: bool) -> Vec<String> {
  let mut out = Vec::new();
  let mut current = String::new();
  let mut run = String::new();
  let mut parts = 0;
  let mut prev: Option<char> = None;
  let mut chars = text.chars().peekable();
  while let Some(ch) = chars.next() {
    if !ch.is_alphanumeric() {
      parts += flush(&mut current, &mut out);
      end_run(&mut run, &mut parts, joined, &mut out);
      prev = None;
      continue;
    }
    if let Some(p) = prev {
      let next_is_lower = chars.peek().is_some_and(|c| c.is_lowercase());
      let camel = p.is_lowercase() && ch.is_uppercase();
      let acronym_end = p.is_uppercase() && ch.is_uppercase() && next_is_lower;
      let digit_edge = p.is_ascii_digit() != ch.is_ascii_digit();
      if camel || acronym_end || digit_edge {
        parts += flush(&mut current, &mut out);
      }
    }
    push_lower(&mut current, ch);
    if joined {
      push_lower(&mut run, ch);
    }
    prev = Some(ch);
  }
  parts += flush(&mut current, &mut out);
  end_run(&mut run, &mut parts, joined, &mut out);
  out
}

fn push_lower(to: &mut String, ch: char) {
  if ch.is_ascii() {
    to.push(ch.to_ascii_lowercase());
  } else {
    to.extend(ch.to_lowercase());
  }
}

fn flush(current: &mut String, out: &mut Vec<String>) -> usize {
  if current.is_empty() {
    return 0;
  }
  out.push(stem(current));
  current.clear();
  1
}

fn end_run(run: &mut String, parts: &mut usize, joined: bool, out: &mut Vec<String>) {
  if joined && *parts > 1 {
    out.push(stem(run));
  }
  run.clear();
  *parts = 0;
}

pub(super) fn compact(text: &str) -> String {
  text
    .chars()
    .filter(|c| c.is_alphanumeric())
    .flat_map(char::to_lowercase)
    .collect()
}
