//! A query is read to its caps (characters, distinct words) and no further, cut between words.

use super::shape_index;
use crate::search::rank;

/// A query is read to its caps and no further: a query a megabyte past the cap costs what the
/// cap does (characters looked at, postings, candidates), finds the same tools, and says what it
/// searched.
#[test]
fn a_query_past_the_caps_costs_what_the_cap_does() {
  use crate::search::query::{MAX_QUERY_CHARS, MAX_QUERY_WORDS, TruncationReason, last_query_work};
  use crate::search::shapes::{Shape, catalog};
  let tools = catalog(Shape::Templated, 2_000);
  let index = shape_index(&tools);
  // Words of the catalog, cycled, then one more word to make exactly the cap.
  let words = [
    "osprey",
    "tickets",
    "sync",
    "region",
    "minutes",
    "connector",
    "42",
  ];
  let mut at_cap = String::new();
  for word in words.iter().cycle() {
    if at_cap.len() + word.len() + 2 > MAX_QUERY_CHARS {
      break;
    }
    at_cap.push_str(word);
    at_cap.push(' ');
  }
  at_cap.push_str(&"q".repeat(MAX_QUERY_CHARS - at_cap.len()));
  assert_eq!(at_cap.len(), MAX_QUERY_CHARS);
  // Twice: the first search of a set of words also counts it (kept for the next ones).
  index.ranked(&at_cap, 10);
  let ranked = index.ranked(&at_cap, 10);
  assert!(ranked.truncated.is_none());
  let (cap_read, cap_work) = (last_query_work(), rank::last_search_work());
  assert_eq!(cap_read, MAX_QUERY_CHARS);

  let long = format!(
    "{at_cap} {}",
    "unrelated words that would match nothing ".repeat(25_000)
  );
  assert!(long.len() > 1_000_000);
  let cut = index.ranked(&long, 10);
  assert_eq!(cut.hits, ranked.hits);
  assert!(
    last_query_work() <= MAX_QUERY_CHARS + 1,
    "{}",
    last_query_work()
  );
  assert_eq!(rank::last_search_work(), cap_work);
  let truncated = cut.truncated.expect("a megabyte is over the cap");
  assert_eq!(truncated.reason, TruncationReason::Chars);
  assert_eq!(truncated.searched, at_cap);
  assert!(truncated.message().contains("512 characters"));

  // More distinct words than the cap within the characters: the first ones are searched.
  let many: Vec<String> = (0..MAX_QUERY_WORDS + 8)
    .map(|i| {
      format!(
        "zq{}{}q",
        (b'a' + i as u8 / 26) as char,
        (b'a' + i as u8 % 26) as char
      )
    })
    .collect();
  let query = many.join(" ");
  let cut = index
    .ranked(&query, 10)
    .truncated
    .expect("over the word cap");
  assert_eq!(cut.reason, TruncationReason::Words);
  assert_eq!(cut.searched, many[..MAX_QUERY_WORDS].join(" "));
  // Repeats are one word: within the cap.
  assert!(index.ranked(&"sync ".repeat(100), 10).truncated.is_none());
}

/// The cut falls at a word boundary, and on a character boundary whatever the script; one huge
/// word is cut at the cap.
#[test]
fn a_long_query_is_cut_between_words() {
  use crate::search::query::{MAX_QUERY_CHARS, read};
  let words = "é".repeat(3) + " ";
  let query = words.repeat(400);
  let cut = read(&query).truncated.unwrap();
  assert!(cut.searched.chars().count() <= MAX_QUERY_CHARS);
  assert!(cut.searched.ends_with("ééé"));
  let giant = "x".repeat(1 << 20);
  assert_eq!(
    read(&giant).truncated.unwrap().searched.len(),
    MAX_QUERY_CHARS
  );
  // A word cut at the cap is dropped, not searched by its first half.
  let query = format!("{} readfile", "a ".repeat(MAX_QUERY_CHARS / 2 - 2));
  assert!(!read(&query).truncated.unwrap().searched.contains("re"));
  let query = "🦀".repeat(MAX_QUERY_CHARS + 3);
  assert_eq!(
    read(&query).truncated.unwrap().searched.chars().count(),
    MAX_QUERY_CHARS
  );
}

/// A label or description is indexed to its first `MAX_INDEXED_BYTES`: a word past them finds
/// nothing, one before them finds its tool, and a 10 MB description costs what the cap does.
#[test]
fn a_description_is_indexed_to_its_cap() {
  use crate::search::index::{Doc, MAX_INDEXED_BYTES, SearchIndex};
  let filler = "plain words ".repeat(10 << 20 >> 4);
  let long = format!("starts with osprey {filler} ends with pelican");
  assert!(long.len() > 10 << 20 >> 1);
  let short = "a tool that books a heron";
  let docs = [
    ("openclaw:core:long", long.as_str()),
    ("openclaw:core:short", short),
  ];
  let index = SearchIndex::build(docs.iter().map(|(id, description)| Doc {
    id,
    name: id.rsplit(':').next().unwrap_or(id),
    label: None,
    description,
  }));
  assert_eq!(index.search("osprey", 5), vec![0]);
  assert_eq!(index.search("heron", 5), vec![1]);
  assert!(index.search("pelican", 5).is_empty());
  // The cut falls between characters: a description of two-byte characters across it builds.
  let accents = "é".repeat(MAX_INDEXED_BYTES);
  let index = SearchIndex::build([Doc {
    id: "openclaw:core:accents",
    name: "accents",
    label: Some(&accents),
    description: &accents,
  }]);
  assert_eq!(index.search("accents", 5), vec![0]);
}
