//! `tools.search` ranking: a small inverted index over name, label and description.
//!
//! Words are split on snake, kebab and camel case, lowercased and lightly stemmed. A query word
//! scores by the field it hits (name over label over description), weighted by how rare it is
//! in the catalog; exact-name and name-prefix matches get a boost; ties break by id.

use std::collections::{BTreeMap, HashMap};

/// Field weights for an exact word hit; a prefix hit scores half.
const NAME: f32 = 6.0;
const LABEL: f32 = 4.0;
const DESCRIPTION: f32 = 1.5;

/// Query words that carry no meaning for tool selection.
const STOPWORDS: &[&str] = &[
  "a", "an", "the", "to", "of", "for", "and", "or", "in", "on", "at", "with", "my", "me", "i",
  "is", "it", "this", "that", "from", "by", "please", "some", "all", "into", "via", "using", "can",
  "you", "be", "as", "about", "its", "our", "your", "we",
];

/// Splits text into lowercased, stemmed words (camelCase, snake_case and kebab-case aware).
pub fn words(text: &str) -> Vec<String> {
  let mut out = Vec::new();
  let mut current = String::new();
  let mut prev: Option<char> = None;
  let chars: Vec<char> = text.chars().collect();
  for (i, &ch) in chars.iter().enumerate() {
    if !ch.is_alphanumeric() {
      flush(&mut current, &mut out);
      prev = None;
      continue;
    }
    if let Some(p) = prev {
      let next_is_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
      let camel = p.is_lowercase() && ch.is_uppercase();
      let acronym_end = p.is_uppercase() && ch.is_uppercase() && next_is_lower;
      let digit_edge = p.is_ascii_digit() != ch.is_ascii_digit();
      if camel || acronym_end || digit_edge {
        flush(&mut current, &mut out);
      }
    }
    current.extend(ch.to_lowercase());
    prev = Some(ch);
  }
  flush(&mut current, &mut out);
  out
}

fn flush(current: &mut String, out: &mut Vec<String>) {
  if !current.is_empty() {
    out.push(stem(current));
    current.clear();
  }
}

/// A deliberately small suffix stemmer: plurals, `-ing`, `-ed`.
fn stem(word: &str) -> String {
  let n = word.len();
  if !word.is_ascii() || n <= 3 {
    return word.to_string();
  }
  if let Some(base) = word.strip_suffix("ies").filter(|_| n > 4) {
    return format!("{base}y");
  }
  if word.ends_with("sses")
    || word.ends_with("xes")
    || word.ends_with("ches")
    || word.ends_with("shes")
  {
    return word[..n - 2].to_string();
  }
  if word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is")
  {
    return word[..n - 1].to_string();
  }
  if let Some(base) = word.strip_suffix("ing").filter(|b| b.len() >= 3) {
    return undouble(base);
  }
  if let Some(base) = word.strip_suffix("ed").filter(|b| b.len() >= 3) {
    return undouble(base);
  }
  word.to_string()
}

/// `running` → `run`, `stopped` → `stop`.
fn undouble(base: &str) -> String {
  let bytes = base.as_bytes();
  let n = bytes.len();
  if n >= 2 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z') {
    base[..n - 1].to_string()
  } else {
    base.to_string()
  }
}

/// What the index needs to know of one catalog entry.
pub struct Doc<'a> {
  pub name: &'a str,
  pub label: Option<&'a str>,
  pub description: &'a str,
}

#[derive(Clone, Copy)]
struct Posting {
  doc: u32,
  weight: f32,
}

/// Inverted index over a fixed list of documents (the guest-visible catalog entries).
pub struct SearchIndex {
  postings: BTreeMap<String, Vec<Posting>>,
  /// Normalised full names (`web_search` → `websearch`), for exact-name and prefix boosts.
  names: Vec<String>,
  docs: usize,
}

fn compact(text: &str) -> String {
  text
    .chars()
    .filter(|c| c.is_alphanumeric())
    .flat_map(char::to_lowercase)
    .collect()
}

impl SearchIndex {
  pub fn build<'a>(docs: impl IntoIterator<Item = Doc<'a>>) -> Self {
    let mut postings: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
    let mut names = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
      let mut best: HashMap<String, f32> = HashMap::new();
      let fields = [
        (doc.name, NAME),
        (doc.label.unwrap_or(""), LABEL),
        (doc.description, DESCRIPTION),
      ];
      for (text, weight) in fields {
        for word in words(text) {
          let slot = best.entry(word).or_insert(0.0);
          *slot = slot.max(weight);
        }
      }
      for (word, weight) in best {
        postings.entry(word).or_default().push(Posting {
          doc: i as u32,
          weight,
        });
      }
      names.push(compact(doc.name));
    }
    SearchIndex {
      postings,
      docs: names.len(),
      names,
    }
  }

  /// Document indices ranked for `query`, best first, ties by `tie` (the entry id), at most `limit`.
  pub fn search<'a>(
    &self,
    query: &str,
    limit: usize,
    tie: impl Fn(usize) -> &'a str,
  ) -> Vec<usize> {
    let mut terms = words(query);
    terms.retain(|t| !STOPWORDS.contains(&t.as_str()));
    terms.sort();
    terms.dedup();
    let whole = compact(query);
    if terms.is_empty() && whole.is_empty() {
      return (0..self.docs.min(limit)).collect();
    }
    let mut scores: HashMap<u32, (f32, u32)> = HashMap::new();
    for term in &terms {
      let df = self.postings.get(term).map_or(0, Vec::len);
      let idf = (1.0 + self.docs as f32 / (1.0 + df as f32)).ln();
      let mut hit: HashMap<u32, f32> = HashMap::new();
      if let Some(list) = self.postings.get(term) {
        for p in list {
          hit.insert(p.doc, p.weight);
        }
      }
      if term.len() >= 3 {
        let prefixed = self
          .postings
          .range::<str, _>((
            std::ops::Bound::Excluded(term.as_str()),
            std::ops::Bound::Unbounded,
          ))
          .take_while(|(word, _)| word.starts_with(term.as_str()));
        for (_, list) in prefixed {
          for p in list {
            let slot = hit.entry(p.doc).or_insert(0.0);
            *slot = slot.max(p.weight * 0.5);
          }
        }
      }
      for (doc, weight) in hit {
        let slot = scores.entry(doc).or_insert((0.0, 0));
        slot.0 += weight * idf;
        slot.1 += 1;
      }
    }
    if whole.len() >= 2 {
      for (i, name) in self.names.iter().enumerate() {
        let boost = if *name == whole {
          20.0
        } else if name.starts_with(&whole) {
          6.0
        } else {
          continue;
        };
        scores.entry(i as u32).or_insert((0.0, 0)).0 += boost;
      }
    }
    let term_count = terms.len().max(1) as f32;
    let mut ranked: Vec<(usize, f32)> = scores
      .into_iter()
      .map(|(doc, (score, matched))| {
        (
          doc as usize,
          score * (0.5 + 0.5 * matched as f32 / term_count),
        )
      })
      .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| tie(a.0).cmp(tie(b.0))));
    ranked.truncate(limit);
    ranked.into_iter().map(|(doc, _)| doc).collect()
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn splits_cases_and_stems() {
    assert_eq!(words("readFile"), vec!["read", "file"]);
    assert_eq!(words("web-search_results"), vec!["web", "search", "result"]);
    assert_eq!(words("HTTPRequest"), vec!["http", "request"]);
    assert_eq!(words("listIssues2"), vec!["list", "issue", "2"]);
    assert_eq!(words("running stopped files"), vec!["run", "stop", "file"]);
  }

  #[test]
  fn ranks_names_first_and_breaks_ties_by_id() {
    let docs = [
      ("send_message", "Send a chat message"),
      ("read_file", "Read a file from the workspace"),
      ("write_file", "Write a file"),
      ("web_search", "Search the web"),
    ];
    let ids: Vec<String> = docs
      .iter()
      .map(|(n, _)| format!("openclaw:core:{n}"))
      .collect();
    let index = SearchIndex::build(docs.iter().map(|(name, description)| Doc {
      name,
      label: None,
      description,
    }));
    let tie = |i: usize| ids[i].as_str();
    assert_eq!(index.search("read local file", 5, tie)[0], 1);
    assert_eq!(index.search("web_search", 5, tie)[0], 3);
    assert_eq!(index.search("file", 5, tie), vec![1, 2]);
    assert_eq!(index.search("", 2, tie), vec![0, 1]);
    assert!(index.search("zzz", 5, tie).is_empty());
  }
}
