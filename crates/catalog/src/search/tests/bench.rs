//! Ignored benchmarks of the search, numbers only (each says how to run it).

use crate::search::index::{Doc, SearchIndex};
use crate::search::rank;
use serde_json::Value;

/// Median time of one search over a synthetic 10,000-entry catalog. Numbers only, no assertion:
/// `cargo test --release --lib bench_search_10k -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_search_10k() {
  use std::hint::black_box;
  use std::time::Instant;

  let catalog: Value = serde_json::from_str(include_str!(
    "../../../../../__test__/fixtures/ranking-catalog.json"
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
    "../../../../../__test__/fixtures/ranking-catalog.json"
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
  use crate::search::shapes::{SHAPES, catalog, queries};
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
        let (read, scored) = rank::last_search_work();
        let blocks = rank::last_search_blocks();
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
