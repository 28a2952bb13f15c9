//! The pruned search against the exhaustive ranking (`reference.rs`): the same answers, and the
//! work it skips (postings read, candidates scored, blocks visited) at any catalog size.

use super::shape_index;
use crate::search::index::{Doc, SearchIndex};
use crate::search::rank;

/// The pruned search returns exactly what the exhaustive ranking (`reference.rs`, the code
/// before pruning) returns, in the same order, over random queries on large synthetic catalogs:
/// the bench's (words shared with thousands of tools, mass ties broken by id) and one of
/// invented words with synonyms, prefixes, labels and stopwords mixed in.
#[test]
fn pruned_search_equals_exhaustive() {
  let seed = std::cell::Cell::new(0x9e37_79b9_7f4a_7c15_u64);
  let next = |n: usize| {
    let mut x = seed.get();
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    seed.set(x);
    (x % n as u64) as usize
  };
  let verbs = [
    "read", "write", "list", "send", "sync", "get", "create", "delete",
  ];
  let nouns = [
    "file", "issue", "ticket", "event", "note", "user", "page", "message", "email", "reminder",
  ];
  let extra = [
    "search",
    "find",
    "fetch",
    "schedule",
    "calendar",
    "the",
    "a",
    "for",
    "with",
    "new",
    "open",
    "files",
    "notes",
    "team",
    "project",
    "web",
    "remind",
    "reminders",
    "docs",
    "status",
  ];
  let bench: Vec<(String, Option<String>, String)> = (0..6_000)
    .map(|i| {
      (
        format!("{}_{}_{i}", verbs[i % 5], nouns[i % 7]),
        None,
        format!(
          "Tool number {i}: {}s {}s for team {} bench 0.5",
          verbs[i % 5],
          nouns[i % 5],
          i % 97
        ),
      )
    })
    .collect();
  let vocabulary: Vec<&str> = verbs.iter().chain(&nouns).chain(&extra).copied().collect();
  let mixed: Vec<(String, Option<String>, String)> = (0..4_000)
    .map(|i| {
      let pick =
        |n: usize| -> Vec<&str> { (0..n).map(|_| vocabulary[next(vocabulary.len())]).collect() };
      let name = format!("{}_{}", pick(1 + next(3)).join("_"), i % 50);
      let label = (next(4) == 0).then(|| pick(2).join(" "));
      let description = pick(next(12)).join(" ");
      (name, label, description)
    })
    .collect();
  let mut queries: Vec<String> = vec![
    "read a file".into(),
    "send an event to the team".into(),
    "list open tickets".into(),
    "sync notes".into(),
    "write_issue_42".into(),
    "user page".into(),
    "team".into(),
    "a".into(),
  ];
  for _ in 0..400 {
    let words: Vec<String> = (0..1 + next(5))
      .map(|_| match next(6) {
        0 => format!("{}", next(200)),
        1 => {
          let word = vocabulary[next(vocabulary.len())];
          word[..word.len().min(4)].to_string()
        }
        _ => vocabulary[next(vocabulary.len())].to_string(),
      })
      .collect();
    queries.push(words.join(if next(3) == 0 { "_" } else { " " }));
  }
  for tools in [&bench, &mixed] {
    // Ids are unique in a catalog (names need not be: the mixed one repeats some).
    let ids: Vec<String> = tools
      .iter()
      .enumerate()
      .map(|(i, (name, _, _))| format!("openclaw:core{i}:{name}"))
      .collect();
    let index = SearchIndex::build(tools.iter().enumerate().map(
      |(i, (name, label, description))| Doc {
        id: &ids[i],
        name,
        label: label.as_deref(),
        description,
      },
    ));
    let tie = |i: usize| ids[i].as_str();
    let (mut pruned_work, mut full_work) = (0, 0);
    for query in &queries {
      for limit in [1, 5, 10, 50] {
        let expected = index.search_reference(query, limit, tie);
        assert_eq!(
          index.search_exhaustive(query, limit),
          expected,
          "exhaustive {query:?} limit {limit}"
        );
        full_work += rank::last_search_work().1;
        assert_eq!(
          index.search(query, limit),
          expected,
          "pruned {query:?} limit {limit}"
        );
        pruned_work += rank::last_search_work().1;
      }
    }
    println!("candidates scored: pruned {pruned_work}, exhaustive {full_work}");
    assert!(pruned_work < full_work);
  }
}

/// A word every tool says ("team") no longer makes every tool a candidate: the bench query
/// scores the tools its rarer words reach, not the catalog.
#[test]
fn a_word_in_every_tool_is_not_scored_everywhere() {
  let tools: Vec<(String, String)> = (0..10_000)
    .map(|i| {
      let verbs = ["read", "write", "list", "send", "sync"];
      let nouns = ["file", "issue", "ticket", "event", "note", "user", "page"];
      (
        format!("{}_{}_{i}", verbs[i % 5], nouns[i % 7]),
        format!(
          "Tool number {i}: {}s {}s for team {} bench",
          verbs[i % 5],
          nouns[i % 5],
          i % 97
        ),
      )
    })
    .collect();
  let index = SearchIndex::build(tools.iter().map(|(name, description)| Doc {
    id: name,
    name,
    label: None,
    description,
  }));
  let hits = index.search("send an event to the team", 10);
  let (postings, pruned) = rank::last_search_work();
  assert_eq!(
    hits,
    index.search_exhaustive("send an event to the team", 10)
  );
  let (all_postings, full) = rank::last_search_work();
  assert_eq!(full, 10_000);
  println!("scored {pruned} of {full}, read {postings} postings of {all_postings}");
  assert!(pruned < 1_000, "scored {pruned}");
  assert!(postings * 5 < all_postings, "read {postings}");
}

/// A query with no word the catalog knows reads no posting and visits no block, whatever the
/// catalog's size and shape.
#[test]
fn a_query_with_no_known_word_costs_nothing_at_any_size() {
  use crate::search::shapes::{SHAPES, catalog};
  for shape in SHAPES {
    let index = shape_index(&catalog(shape, 10_000));
    for query in ["xyzzy", "xyzzy plugh", "zzzzzzzz qqqqqqq wwwwwww", "ñandú"] {
      assert!(index.search(query, 10).is_empty(), "{shape:?} {query:?}");
      assert_eq!(rank::last_search_work(), (0, 0), "{shape:?} {query:?}");
      assert_eq!(rank::last_search_blocks(), 0, "{shape:?} {query:?}");
    }
  }
}

/// Words every tool of a shape says (templated connectors, near-duplicates, one huge server, the
/// bench's catalog) cost the same few blocks at 100 tools and at 10,000: the first block fills
/// the top with tools that tie, and no other tool can pass them. Same answers as the
/// exhaustive reference.
#[test]
fn words_every_tool_says_cost_a_block_at_any_size() {
  use crate::search::shapes::{SHAPES, Shape, catalog, queries};
  for shape in SHAPES.into_iter().filter(|&s| s != Shape::TinyServers) {
    let (_, common) = queries(shape)
      .into_iter()
      .find(|(kind, _)| *kind == "common")
      .unwrap();
    let mut work = Vec::new();
    for size in [100, 10_000] {
      let tools = catalog(shape, size);
      let index = shape_index(&tools);
      let tie = |i: usize| tools[i].id.as_str();
      for limit in [1, 10] {
        let hits = index.search(&common, limit);
        work.push((
          size,
          limit,
          rank::last_search_blocks(),
          rank::last_search_work(),
        ));
        assert_eq!(
          hits,
          index.search_reference(&common, limit, tie),
          "{shape:?} {size}"
        );
        assert_eq!(hits.len(), limit);
      }
    }
    println!("{shape:?} {common:?}: (size, limit, blocks, (postings, scored)) {work:?}");
    for &(size, _, blocks, (_, scored)) in &work {
      assert!(blocks <= 2, "{shape:?} at {size}: {blocks} blocks");
      assert!(scored <= 128, "{shape:?} at {size}: {scored} scored");
    }
  }
}
