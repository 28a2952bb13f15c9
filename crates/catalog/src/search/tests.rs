//! Tests of the search: tokenizing, stemming, the thesaurus, ranking on small fixtures and on
//! the ranking test set, and an ignored 10,000-entry benchmark.

use super::index::{Doc, SearchIndex};
use super::query::concepts;
use super::stem::stem;
use super::text::{index_words, words};
use crate::Catalog;
use serde_json::Value;

#[test]
fn splits_snake_camel_kebab_and_acronyms() {
  assert_eq!(words("readFile"), ["read", "fil"]);
  assert_eq!(words("read_file"), words("read-file"));
  assert_eq!(words("ReadFile"), words("READ_FILE"));
  assert_eq!(words("web-search_results"), ["web", "search", "result"]);
  assert_eq!(words("HTTPRequest"), ["http", "request"]);
  assert_eq!(words("listIssues2"), ["list", "issu", "2"]);
  assert_eq!(words("9am, 4pm"), ["9", "am", "4", "pm"]);
  assert_eq!(words("  what's   new?  "), ["what", "s", "new"]);
  assert!(words("—/_-").is_empty());
}

#[test]
fn indexes_camel_cased_brands_whole_as_well() {
  assert_eq!(
    index_words("the OpenClaw process"),
    ["the", "open", "claw", "openclaw", "process"]
  );
  // Snake and kebab parts stay parts: only camel case hides a word boundary inside a word.
  assert_eq!(index_words("web_search"), ["web", "search"]);
  assert_eq!(words("OpenClaw"), ["open", "claw"]);
}

#[test]
fn stems_word_families_alike() {
  for family in [
    "schedule schedules scheduled scheduling",
    "create creates created creating",
    "file files filed filing",
    "reply replies replied",
    "try tries tried",
    "stop stops stopped stopping",
    "run runs running ran",
    "send sends sending sent",
    "message messages messaging",
    "query queries queried",
    "status statuses",
    "class classes",
    "search searches searched searching",
    "patch patches patched",
    "process processes processed processing",
  ] {
    let mut forms = family.split(' ').map(stem);
    let first = forms.next().unwrap();
    for (form, stemmed) in family
      .split(' ')
      .zip(std::iter::once(first.clone()).chain(forms))
    {
      assert_eq!(
        stemmed, first,
        "{form} should stem like the rest of {family:?}"
      );
    }
  }
}

#[test]
fn stemming_keeps_words_that_only_look_inflected() {
  // No vowel would be left (`str`), a double `-ee`, a short base, or a listed exception.
  for word in [
    "string", "thing", "need", "speed", "news", "canvas", "ping", "bus", "its",
  ] {
    assert_eq!(stem(word), word);
  }
  // `added` must not lose a `d` (the base is too short to undouble), `calling` keeps `ll`.
  assert_eq!(stem("added"), "add");
  assert_eq!(stem("calling"), "call");
  assert_eq!(stem("key"), "key");
  assert_eq!(stem("änderung"), "änderung");
  assert_ne!(stem("news"), stem("new"));
}

fn alternatives(query: &str) -> Vec<Vec<String>> {
  concepts(query)
    .iter()
    .filter(|c| !c.minor)
    .map(|c| c.alternatives().map(|(w, _)| w.to_string()).collect())
    .collect()
}

#[test]
fn expands_synonyms_both_ways_and_hints_one_way() {
  let find = &alternatives("find")[0];
  assert!(find.contains(&stem("search")));
  assert!(alternatives("search")[0].contains(&stem("find")));
  // "email the report" is a send; "send" is not an email.
  assert!(alternatives("email")[0].contains(&stem("send")));
  assert!(!alternatives("send")[0].contains(&stem("email")));
  // Inflected query words expand too: the tables are stemmed like queries.
  assert!(alternatives("reminders")[0].contains(&stem("cron")));
  assert_eq!(alternatives("zyzzyva"), [["zyzzyva"]]);
}

#[test]
fn reads_phrases_and_stopwords() {
  let look_up = alternatives("look up nearby restaurants");
  assert_eq!(look_up.len(), 3);
  assert!(look_up[0].contains(&stem("search")));
  // Stopwords, even inflected ones like `some`, are minor concepts, not coverage to miss.
  let all = concepts("create a file with some content");
  let minor: Vec<&str> = all
    .iter()
    .filter(|c| c.minor)
    .map(|c| c.word.as_str())
    .collect();
  assert_eq!(minor, ["a", "with", "som"]);
}

#[test]
fn synonyms_in_one_query_do_not_count_twice() {
  // "create a new file": `new` is its own concept, so `create` does not also reach it.
  let both = alternatives("create a new file");
  assert!(!both[0].contains(&"new".to_string()));
  assert!(!both[1].contains(&stem("create")));
  assert!(alternatives("create")[0].contains(&"new".to_string()));
}

struct Fixture {
  ids: Vec<String>,
  index: SearchIndex,
}

impl Fixture {
  fn new(tools: &[(&str, &str, &str)]) -> Fixture {
    Fixture {
      ids: tools.iter().map(|(id, _, _)| id.to_string()).collect(),
      index: SearchIndex::build(tools.iter().map(|(id, label, description)| Doc {
        id,
        name: id.rsplit(':').next().unwrap(),
        label: (!label.is_empty()).then_some(*label),
        description,
      })),
    }
  }

  fn search(&self, query: &str, limit: usize) -> Vec<&str> {
    let hits = self.index.search(query, limit);
    hits.into_iter().map(|i| self.ids[i].as_str()).collect()
  }
}

fn small() -> Fixture {
  Fixture::new(&[
    ("openclaw:core:send_message", "", "Send a chat message"),
    (
      "openclaw:core:read_file",
      "Read file",
      "Read a file from the workspace",
    ),
    ("openclaw:core:write_file", "", "Write a file"),
    ("openclaw:core:web_search", "Web search", "Search the web"),
    (
      "openclaw:core:cron",
      "",
      "Manage scheduled jobs and reminders",
    ),
    ("openclaw:home:turn_on", "", "Turn on a light or switch"),
    ("openclaw:home:turn_off", "", "Turn off a light or switch"),
  ])
}

#[test]
fn ranks_names_first_and_breaks_ties_by_id() {
  let f = small();
  assert_eq!(f.search("read local file", 5)[0], "openclaw:core:read_file");
  assert_eq!(f.search("web_search", 5)[0], "openclaw:core:web_search");
  assert_eq!(
    f.search("file", 5),
    ["openclaw:core:read_file", "openclaw:core:write_file"]
  );
  assert_eq!(
    f.search("", 2),
    ["openclaw:core:send_message", "openclaw:core:read_file"]
  );
  assert_eq!(f.search("   ", 1), ["openclaw:core:send_message"]);
  assert!(f.search("zzz", 5).is_empty());
  assert!(f.search("file", 0).is_empty());
}

#[test]
fn exact_name_beats_any_score() {
  // `cron` is the exact name; the other tool says "cron" three times over.
  let f = Fixture::new(&[
    ("openclaw:core:schedule", "Cron", "Cron cron: run cron jobs"),
    ("openclaw:core:cron", "", "Reminders"),
  ]);
  assert_eq!(f.search("cron", 5)[0], "openclaw:core:cron");
  assert_eq!(f.search("CRON", 5)[0], "openclaw:core:cron");
}

#[test]
fn finds_tools_by_synonyms_inflections_and_stopword_names() {
  let f = small();
  assert_eq!(f.search("remind me tomorrow", 5)[0], "openclaw:core:cron");
  assert_eq!(f.search("scheduling", 5)[0], "openclaw:core:cron");
  assert_eq!(f.search("post a msg", 5)[0], "openclaw:core:send_message");
  assert_eq!(
    f.search("look up something online", 5)[0],
    "openclaw:core:web_search"
  );
  // `on` is a stopword, but it is also what tells these two tools apart.
  assert_eq!(
    f.search("turn on the lights", 5)[0],
    "openclaw:home:turn_on"
  );
  assert_eq!(
    f.search("turn off the lights", 5)[0],
    "openclaw:home:turn_off"
  );
  // A prefix is enough for a long word, not for a stem as short as `not` ("notes").
  assert_eq!(f.search("remind", 5)[0], "openclaw:core:cron");
  let notion = Fixture::new(&[("openclaw:notion:notion_search", "", "Search Notion")]);
  assert!(notion.search("notes", 5).is_empty());
  assert_eq!(notion.search("notio", 5), ["openclaw:notion:notion_search"]);
}

#[test]
fn covering_the_whole_query_beats_one_strong_word() {
  let f = Fixture::new(&[
    (
      "openclaw:discord:discord_create_thread",
      "",
      "Start a thread",
    ),
    (
      "openclaw:core:write",
      "",
      "Write content to a file. Creates the file if needed.",
    ),
  ]);
  assert_eq!(
    f.search("create a new file with some content", 5)[0],
    "openclaw:core:write"
  );
}

#[test]
fn a_rare_synonym_of_a_common_word_is_not_a_rare_word() {
  // `fetch` is in one name only, but "get" reaches four tools: the hit is worth what "get" is.
  let f = Fixture::new(&[
    (
      "openclaw:core:web_fetch",
      "",
      "Fetch a web page and return its text",
    ),
    ("openclaw:home:get_state", "", "Get the state of a device"),
    ("openclaw:crm:get_user", "", "Get a user"),
    ("openclaw:cal:get_event", "", "Get an event"),
    (
      "client:ide:read_file",
      "",
      "Read a file open in the editor, with unsaved changes",
    ),
  ]);
  assert_eq!(
    f.search("get the unsaved text from the editor", 5)[0],
    "client:ide:read_file"
  );
}

/// `__test__/fixtures/ranking-catalog.json`, through the real catalog (MCP entries hidden).
fn ranking(set: &str) -> (usize, usize, usize) {
  let catalog: Value = serde_json::from_str(include_str!(
    "../../../../__test__/fixtures/ranking-catalog.json"
  ))
  .unwrap();
  let queries: Value = serde_json::from_str(set).unwrap();
  let catalog = Catalog::build(&catalog["tools"]);
  let (mut first, mut top5, mut total) = (0, 0, 0);
  for q in queries["queries"].as_array().unwrap() {
    let expected = q["expected"].as_str().unwrap();
    let hits: Vec<&str> = catalog
      .search(q["query"].as_str().unwrap(), 5)
      .into_iter()
      .map(|e| e.id.as_str())
      .collect();
    assert!(hits.iter().all(|id| !id.starts_with("mcp:")));
    total += 1;
    first += (hits.first() == Some(&expected)) as usize;
    top5 += hits.contains(&expected) as usize;
  }
  (first, top5, total)
}

#[test]
fn meets_the_bar_on_the_ranking_test_set() {
  let (first, top5, total) = ranking(include_str!(
    "../../../../__test__/fixtures/ranking-catalog.json"
  ));
  println!("ranking set: p@1 {first}/{total}, recall@5 {top5}/{total}");
  assert!(total >= 40);
  assert!(first as f64 >= 0.9 * total as f64, "p@1 {first}/{total}");
  assert!(
    top5 as f64 >= 0.95 * total as f64,
    "recall@5 {top5}/{total}"
  );
}

/// Median time of one search over a synthetic 10,000-entry catalog. Numbers only, no assertion:
/// `cargo test --release --lib bench_search_10k -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_search_10k() {
  use std::hint::black_box;
  use std::time::Instant;

  let catalog: Value = serde_json::from_str(include_str!(
    "../../../../__test__/fixtures/ranking-catalog.json"
  ))
  .unwrap();
  // Real vocabulary from the fixture, plus invented words so the vocabulary grows with the
  // catalog the way plugin-specific nouns do.
  let mut vocabulary: Vec<String> = Vec::new();
  for tool in catalog["tools"].as_array().unwrap() {
    for field in ["name", "description"] {
      for w in tool[field]
        .as_str()
        .unwrap_or("")
        .split(|c: char| !c.is_alphanumeric())
      {
        let w = w.to_lowercase();
        if w.len() > 2 && !vocabulary.contains(&w) {
          vocabulary.push(w);
        }
      }
    }
  }
  let mut seed = 0x2545_f491_4f6c_dd1d_u64;
  let mut next = move |n: usize| {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    (seed % n as u64) as usize
  };
  let syllables = [
    "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "zen", "bar", "qua", "dex",
  ];
  for _ in 0..3000 {
    let len = 2 + next(3);
    vocabulary.push((0..len).map(|_| syllables[next(syllables.len())]).collect());
  }
  let plugins: Vec<String> = (0..200).map(|i| format!("plugin{i}")).collect();
  let entries: Vec<(String, String, String)> = (0..10_000)
    .map(|i| {
      let plugin = &plugins[next(plugins.len())];
      let name = format!(
        "{}_{}_{}_{i}",
        plugin,
        vocabulary[next(vocabulary.len())],
        vocabulary[next(vocabulary.len())]
      );
      let description: Vec<&str> = (0..8 + next(20))
        .map(|_| vocabulary[next(vocabulary.len())].as_str())
        .collect();
      let id = format!("openclaw:{plugin}:{name}");
      (id, name, description.join(" "))
    })
    .collect();

  let started = Instant::now();
  let index = SearchIndex::build(entries.iter().map(|(id, name, description)| Doc {
    id,
    name,
    label: None,
    description,
  }));
  let build = started.elapsed();

  let queries: Value = serde_json::from_str(include_str!(
    "../../../../__test__/fixtures/ranking-catalog.json"
  ))
  .unwrap();
  let mut queries: Vec<String> = queries["queries"]
    .as_array()
    .unwrap()
    .iter()
    .map(|q| q["query"].as_str().unwrap().to_string())
    .collect();
  queries.extend(entries.iter().step_by(500).map(|(_, name, _)| name.clone()));
  queries.extend(["file", "readFile", "a", "list"].map(String::from));

  // Warm-up: the thesaurus and the per-thread scratch are built on first use.
  for query in &queries {
    black_box(index.search(query, 8));
  }
  let mut samples = Vec::new();
  for _ in 0..20 {
    for query in &queries {
      let started = Instant::now();
      black_box(index.search(black_box(query), 8));
      samples.push(started.elapsed());
    }
  }
  samples.sort();
  let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
  println!(
    "10,000 entries: build {build:?}; search over {} queries x 20: median {:?}, p90 {:?}, max {:?}",
    queries.len(),
    at(0.5),
    at(0.9),
    at(1.0)
  );
}

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
        full_work += super::rank::last_search_work().1;
        assert_eq!(
          index.search(query, limit),
          expected,
          "pruned {query:?} limit {limit}"
        );
        pruned_work += super::rank::last_search_work().1;
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
  let (postings, pruned) = super::rank::last_search_work();
  assert_eq!(
    hits,
    index.search_exhaustive("send an event to the team", 10)
  );
  let (all_postings, full) = super::rank::last_search_work();
  assert_eq!(full, 10_000);
  println!("scored {pruned} of {full}, read {postings} postings of {all_postings}");
  assert!(pruned < 1_000, "scored {pruned}");
  assert!(postings * 5 < all_postings, "read {postings}");
}

/// The bench's synthetic catalog (`bench/lib/tool-search.mjs`) at 100 and 10,000 tools: median
/// time of its six queries, pruned against the exhaustive reference, interleaved. Numbers only:
/// `cargo test --release --lib bench_search_synthetic -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_search_synthetic() {
  use std::hint::black_box;
  use std::time::Instant;
  let queries = [
    "read a file",
    "send an event to the team",
    "list open tickets",
    "sync notes",
    "write_issue_42",
    "user page",
  ];
  for size in [100, 10_000] {
    let verbs = ["read", "write", "list", "send", "sync"];
    let nouns = ["file", "issue", "ticket", "event", "note", "user", "page"];
    let tools: Vec<(String, String, String)> = (0..size)
      .map(|i| {
        let name = format!("{}_{}_{i}", verbs[i % 5], nouns[i % 7]);
        let description = format!(
          "Tool number {i}: {}s {}s for team {} bench 0.123",
          verbs[i % 5],
          nouns[i % 5],
          i % 97
        );
        (format!("openclaw:core:{name}"), name, description)
      })
      .collect();
    let index = SearchIndex::build(tools.iter().map(|(id, name, description)| Doc {
      id,
      name,
      label: None,
      description,
    }));
    let tie = |i: usize| tools[i].0.as_str();
    for query in queries {
      let mut pruned = Vec::new();
      let mut full = Vec::new();
      for round in 0..400 {
        let started = Instant::now();
        black_box(index.search(black_box(query), 10));
        if round >= 20 {
          pruned.push(started.elapsed());
        }
        let started = Instant::now();
        black_box(index.search_reference(black_box(query), 10, tie));
        if round >= 20 {
          full.push(started.elapsed());
        }
      }
      pruned.sort();
      full.sort();
      println!(
        "{size} tools {query:?}: pruned {:?}, exhaustive {:?}",
        pruned[pruned.len() / 2],
        full[full.len() / 2]
      );
    }
  }
}

/// Each shape's three queries at 100 and 10,000 tools: pruned search time (median) and work,
/// against the exhaustive reference. Numbers only:
/// `cargo test --release -p code-mode-catalog bench_search_shapes -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_search_shapes() {
  use super::shapes::{SHAPES, catalog, queries};
  use std::hint::black_box;
  use std::time::Instant;
  for shape in SHAPES {
    for size in [100, 10_000] {
      let tools = catalog(shape, size);
      let index = SearchIndex::build(tools.iter().map(|t| Doc {
        id: &t.id,
        name: &t.name,
        label: t.label.as_deref(),
        description: &t.description,
      }));
      let tie = |i: usize| tools[i].id.as_str();
      for (kind, query) in queries(shape) {
        let hits = index.search(&query, 10);
        assert_eq!(
          hits,
          index.search_reference(&query, 10, tie),
          "{shape:?} {query:?}"
        );
        let (read, scored) = super::rank::last_search_work();
        let blocks = super::rank::last_search_blocks();
        let (mut pruned, mut full) = (Vec::new(), Vec::new());
        for round in 0..300 {
          let started = Instant::now();
          black_box(index.search(black_box(&query), 10));
          if round >= 20 {
            pruned.push(started.elapsed());
          }
          let started = Instant::now();
          black_box(index.search_reference(black_box(&query), 10, tie));
          if round >= 20 {
            full.push(started.elapsed());
          }
        }
        pruned.sort();
        full.sort();
        println!(
          "{shape:?} {size} {kind} {query:?}: pruned {:?} (read {read}, scored {scored}, blocks {blocks}), exhaustive {:?}; top {:?}",
          pruned[pruned.len() / 2],
          full[full.len() / 2],
          hits.first().map(|&h| tools[h].id.as_str())
        );
      }
    }
  }
}

fn shape_index(tools: &[super::shapes::Tool]) -> SearchIndex {
  SearchIndex::build(tools.iter().map(|t| Doc {
    id: &t.id,
    name: &t.name,
    label: t.label.as_deref(),
    description: &t.description,
  }))
}

/// A query with no word the catalog knows reads no posting and visits no block, whatever the
/// catalog's size and shape.
#[test]
fn a_query_with_no_known_word_costs_nothing_at_any_size() {
  use super::shapes::{SHAPES, catalog};
  for shape in SHAPES {
    let index = shape_index(&catalog(shape, 10_000));
    for query in ["xyzzy", "xyzzy plugh", "zzzzzzzz qqqqqqq wwwwwww", "ñandú"] {
      assert!(index.search(query, 10).is_empty(), "{shape:?} {query:?}");
      assert_eq!(
        super::rank::last_search_work(),
        (0, 0),
        "{shape:?} {query:?}"
      );
      assert_eq!(super::rank::last_search_blocks(), 0, "{shape:?} {query:?}");
    }
  }
}

/// Words every tool of a shape says (templated connectors, near-duplicates, one huge server, the
/// bench's catalog) cost the same few blocks at 100 tools and at 10,000: the first block fills
/// the top with tools that tie, and no other tool can pass them. Same answers as the
/// exhaustive reference.
#[test]
fn words_every_tool_says_cost_a_block_at_any_size() {
  use super::shapes::{SHAPES, Shape, catalog, queries};
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
          super::rank::last_search_blocks(),
          super::rank::last_search_work(),
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

/// A query is read to its caps and no further: a query a megabyte past the cap costs what the
/// cap does (characters looked at, postings, candidates), finds the same tools, and says what it
/// searched.
#[test]
fn a_query_past_the_caps_costs_what_the_cap_does() {
  use super::query::{MAX_QUERY_CHARS, MAX_QUERY_WORDS, TruncationReason, last_query_work};
  use super::shapes::{Shape, catalog};
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
  let (cap_read, cap_work) = (last_query_work(), super::rank::last_search_work());
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
  assert_eq!(super::rank::last_search_work(), cap_work);
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
  use super::query::{MAX_QUERY_CHARS, read};
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

/// The held-out ranking sets (`__test__/ranking.spec.ts` prints them through a cell): numbers
/// only, `cargo test -p code-mode-catalog ranking_holdouts -- --ignored --nocapture`.
#[test]
#[ignore]
fn ranking_holdouts() {
  for (name, set) in [
    (
      "holdout",
      include_str!("../../../../__test__/fixtures/ranking-holdout.json"),
    ),
    (
      "holdout-2",
      include_str!("../../../../__test__/fixtures/ranking-holdout-2.json"),
    ),
    (
      "holdout-3",
      include_str!("../../../../__test__/fixtures/ranking-holdout-3.json"),
    ),
  ] {
    let (first, top5, total) = ranking(set);
    println!("{name}: p@1 {first}/{total}, recall@5 {top5}/{total}");
  }
}
