//! Differential tests of `search` (block skipping) against `search_reference` (the exhaustive
//! ranking) and `search_exhaustive`, on adversarial random catalogs: ids out of input order,
//! prefix families, thesaurus words and stopwords, descriptions of widely varying length (so a
//! block's largest weights differ from its tools' own), labels, duplicate names, mass ties, and
//! catalogs around the block size. Ids are unique, as a catalog's are.

use super::index::{Doc, SearchIndex};

struct Rng(u64);
impl Rng {
  fn next(&mut self, n: usize) -> usize {
    let mut x = self.0;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    self.0 = x;
    ((x >> 11) % n.max(1) as u64) as usize
  }
  fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
    v[self.next(v.len())]
  }
}

const VOCAB: &[&str] = &[
  // prefix-sharing family (MIN_PREFIX = 4)
  "data",
  "datas",
  "database",
  "databases",
  "dataset",
  "datasets",
  "datum",
  "datapoint",
  "datastore",
  "remind",
  "reminder",
  "reminders",
  "reminding",
  "note",
  "notes",
  "notion",
  "noted",
  "file",
  "files",
  "filter",
  "filing",
  "filename",
  // thesaurus words / synonyms
  "get",
  "fetch",
  "retrieve",
  "load",
  "grab",
  "find",
  "search",
  "lookup",
  "locate",
  "send",
  "post",
  "publish",
  "create",
  "new",
  "add",
  "make",
  "delete",
  "remove",
  "list",
  "browse",
  "stop",
  "kill",
  "end",
  "login",
  "signin",
  "auth",
  "setup",
  "configure",
  "install",
  "todo",
  "task",
  "pr",
  "pull",
  "request",
  "look",
  "up",
  "sign",
  "set",
  "hang",
  "do",
  // stopwords
  "the",
  "a",
  "to",
  "on",
  "off",
  "in",
  "for",
  "with",
  "of",
  "and",
  "is",
  "it",
  "all",
  // plain
  "web",
  "team",
  "page",
  "issue",
  "ticket",
  "event",
  "email",
  "gmail",
  "calendar",
  "turn",
  "light",
  "switch",
  "voice",
  "call",
  "transcript",
  "phone",
  "number",
  "42",
  "7",
];

fn sentence(r: &mut Rng, n: usize, sep: &str) -> String {
  (0..n).map(|_| r.pick(VOCAB)).collect::<Vec<_>>().join(sep)
}

fn random_id(r: &mut Rng, i: usize) -> String {
  // Ids whose string order differs from input order and from numeric order, prefixes of one
  // another, case and non-ASCII.
  match r.next(7) {
    0 => format!("z{}", 1_000_000 - i),
    1 => format!("a{i}"),
    2 => format!("A:{}", i % 13) + &"x".repeat(i % 3) + &format!("#{i}"),
    3 => format!("é{i}"),
    4 => format!("{i}"),
    5 => format!("m:{}:{i}", r.next(1000)),
    _ => format!("ab{}", i * 7919 % 10007),
  }
}

struct Case {
  ids: Vec<String>,
  names: Vec<String>,
  labels: Vec<Option<String>>,
  descriptions: Vec<String>,
}

fn catalog(r: &mut Rng, n: usize) -> Case {
  let mut ids = Vec::new();
  let mut names = Vec::new();
  let mut labels = Vec::new();
  let mut descriptions = Vec::new();
  for i in 0..n {
    ids.push(random_id(r, i));
    let name = match r.next(8) {
      // duplicate names
      0 => "web_search".to_string(),
      1 => "data".to_string(),
      2 => sentence(r, 1, "_"),
      // long names (many name words, so coverage share is small)
      3 => {
        let k = 3 + r.next(8);
        sentence(r, k, "_")
      }
      // camel case
      4 => {
        let a = r.pick(VOCAB);
        let b = r.pick(VOCAB);
        format!("{a}{}{}", b[..1].to_uppercase(), &b[1..])
      }
      5 => {
        let k = 1 + r.next(3);
        format!("{}_{}", sentence(r, k, "_"), i % 5)
      }
      // stopword names
      6 => format!("turn_{}", r.pick(&["on", "off", "the", "a", "in"])),
      _ => sentence(r, 2, "-"),
    };
    names.push(name);
    let labelled = r.next(3) == 0;
    let k = 1 + r.next(3);
    labels.push(labelled.then(|| sentence(r, k, " ")));
    // Widely varying description lengths: block maxima differ from a tool's own weights.
    let len = match r.next(5) {
      0 => 0,
      1 => 1,
      2 => 2 + r.next(5),
      3 => 40 + r.next(200),
      _ => r.next(15),
    };
    descriptions.push(sentence(r, len, " "));
  }
  Case {
    ids,
    names,
    labels,
    descriptions,
  }
}

fn queries(r: &mut Rng, case: &Case, count: usize) -> Vec<String> {
  let mut out: Vec<String> = vec![
    "data".into(),
    "dat".into(),
    "datab".into(),
    "remind".into(),
    "the".into(),
    "the a to".into(),
    "on".into(),
    "turn on".into(),
    "turn off the light".into(),
    "web search".into(),
    "websearch".into(),
    "web".into(),
    "w".into(),
    "look up a file".into(),
    "pull request".into(),
    "to do".into(),
    "set up the datastore".into(),
    "zzzz qqqq".into(),
    "?!".into(),
    "".into(),
    "42".into(),
    "get data".into(),
    "note notes notion".into(),
    "data data data".into(),
  ];
  for _ in 0..count {
    let q = match r.next(6) {
      0 if !case.names.is_empty() => {
        // exact name, or a prefix of it
        let name = &case.names[r.next(case.names.len())];
        if r.next(2) == 0 {
          name.clone()
        } else {
          let k = 1 + r.next(name.len().max(1));
          let cut: String = name.chars().take(k).collect();
          cut
        }
      }
      1 => {
        // prefixes of vocabulary words
        let w = r.pick(VOCAB);
        let k = 2 + r.next(4);
        w.chars().take(k).collect()
      }
      2 => {
        let k = 1 + r.next(2);
        sentence(r, k, " ") + " the"
      }
      _ => {
        let k = 1 + r.next(5);
        let sep = if r.next(3) == 0 { "_" } else { " " };
        sentence(r, k, sep)
      }
    };
    out.push(q);
  }
  out
}

fn index_of(case: &Case) -> SearchIndex {
  SearchIndex::build((0..case.ids.len()).map(|i| Doc {
    id: &case.ids[i],
    name: &case.names[i],
    label: case.labels[i].as_deref(),
    description: &case.descriptions[i],
  }))
}

fn check(case: &Case, queries: &[String], limits: &[usize]) -> usize {
  let index = index_of(case);
  let tie = |i: usize| case.ids[i].as_str();
  let mut checked = 0;
  for q in queries {
    for &limit in limits {
      let expected = index.search_reference(q, limit, tie);
      let exhaustive = index.search_exhaustive(q, limit);
      let pruned = index.search(q, limit);
      assert_eq!(
        exhaustive,
        expected,
        "exhaustive: n {} query {q:?} limit {limit}",
        case.ids.len()
      );
      assert_eq!(
        pruned,
        expected,
        "pruned: n {} query {q:?} limit {limit}",
        case.ids.len()
      );
      checked += 1;
    }
  }
  checked
}

#[test]
fn differential_small_catalogs_all_limits() {
  let mut r = Rng(0x1234_5678_9abc_def1);
  let mut checked = 0;
  for n in [0usize, 1, 2, 3, 5, 17, 63, 64, 65, 127, 129] {
    for _ in 0..6 {
      let case = catalog(&mut r, n);
      let qs = queries(&mut r, &case, 40);
      let limits: Vec<usize> = (1..=n + 5).collect();
      checked += check(&case, &qs, &limits);
    }
  }
  println!("checked {checked}");
}

#[test]
fn differential_large_catalogs() {
  let mut r = Rng(0xdead_beef_cafe_f00d);
  let mut checked = 0;
  for n in [300usize, 1000, 3000] {
    for _ in 0..3 {
      let case = catalog(&mut r, n);
      let qs = queries(&mut r, &case, 150);
      checked += check(&case, &qs, &[1, 2, 3, 5, 10, 33, 64, 65, 200, n + 5]);
    }
  }
  println!("checked {checked}");
}

/// Mass ties: identical tools (same name, description) with ids in shuffled order, so the
/// bound equals the worst kept score and ids decide.
#[test]
fn differential_mass_ties() {
  let mut r = Rng(0x0bad_f00d_1234_4321);
  for n in [64usize, 65, 200, 1000] {
    let mut case = catalog(&mut r, n);
    for i in 0..n {
      case.names[i] = ["data_store", "web_search", "turn_on"][i % 3].to_string();
      case.descriptions[i] = "get the data from the web".to_string();
      case.labels[i] = (i % 5 == 0).then(|| "Data store".to_string());
    }
    let qs: Vec<String> = [
      "data",
      "data store",
      "datastore",
      "web",
      "web search",
      "get",
      "the",
      "turn on",
      "on",
      "dat",
      "get data from web",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    check(&case, &qs, &[1, 2, 3, 10, 63, 64, 65, 100, n, n + 5]);
  }
}

/// Performance: one prefix reaching many terms with one posting each. The pruned walk costs
/// terms x blocks per query; the reference costs the postings.
#[test]
#[ignore]
fn differential_prefix_many_terms_timing() {
  use std::time::Instant;
  let letters = |mut i: usize| {
    let mut s = String::new();
    for _ in 0..4 {
      s.push((b'a' + (i % 26) as u8) as char);
      i /= 26;
    }
    s
  };
  let n = 10_000;
  let ids: Vec<String> = (0..n).map(|i| format!("tool{i:05}")).collect();
  let descriptions: Vec<String> = (0..n)
    .map(|i| format!("data{} and some text", letters(i)))
    .collect();
  let index = SearchIndex::build((0..n).map(|i| Doc {
    id: &ids[i],
    name: &ids[i],
    label: None,
    description: &descriptions[i],
  }));
  let tie = |i: usize| ids[i].as_str();
  for q in ["data", "data text"] {
    assert_eq!(index.search(q, 10), index.search_reference(q, 10, tie));
    let t = Instant::now();
    for _ in 0..20 {
      std::hint::black_box(index.search(q, 10));
    }
    let pruned = t.elapsed() / 20;
    let t = Instant::now();
    for _ in 0..20 {
      std::hint::black_box(index.search_reference(q, 10, tie));
    }
    let full = t.elapsed() / 20;
    println!(
      "{q:?}: pruned {pruned:?}, reference {full:?}, work {:?}",
      super::rank::last_search_work()
    );
  }
}

/// The `unions` memo under concurrent searches of one index.
#[test]
fn differential_unions_memo_threads() {
  let mut r = Rng(0x7777_1111_2222_3333);
  let case = catalog(&mut r, 2000);
  let qs = queries(&mut r, &case, 300);
  let index = index_of(&case);
  let tie = |i: usize| case.ids[i].as_str();
  let expected: Vec<Vec<usize>> = qs
    .iter()
    .map(|q| index.search_reference(q, 10, tie))
    .collect();
  std::thread::scope(|s| {
    for t in 0..4 {
      let (index, qs, expected) = (&index, &qs, &expected);
      s.spawn(move || {
        for round in 0..3 {
          for (k, q) in qs.iter().enumerate().skip((t + round) % 3) {
            assert_eq!(index.search(q, 10), expected[k], "thread {t} {q:?}");
          }
        }
      });
    }
  });
}

/// How much the random catalogs exercise skipping.
#[test]
fn differential_skipping_is_exercised() {
  let mut r = Rng(0xdead_beef_cafe_f00d);
  let case = catalog(&mut r, 3000);
  let qs = queries(&mut r, &case, 150);
  let index = index_of(&case);
  let (mut pruned, mut full) = (0, 0);
  for q in &qs {
    index.search(q, 5);
    pruned += super::rank::last_search_work().1;
    index.search_exhaustive(q, 5);
    full += super::rank::last_search_work().1;
  }
  println!("scored: pruned {pruned}, exhaustive {full}");
  assert!(pruned < full);
}

/// The catalog shapes of `npm run bench` (`shapes.rs`: the bench's own, templated connectors,
/// near-duplicates, one huge server, many tiny servers) at several sizes, with their own queries
/// and random ones from their words: pruned, exhaustive and reference agree.
#[test]
fn differential_catalog_shapes() {
  use super::shapes::{SHAPES, catalog, queries as kinds};
  let mut r = Rng(0x5eed_0f5a_a9e5_1234);
  let mut checked = 0;
  for shape in SHAPES {
    for size in [64usize, 300, 2_000, 10_000] {
      let tools = catalog(shape, size);
      let case = Case {
        ids: tools.iter().map(|t| t.id.clone()).collect(),
        names: tools.iter().map(|t| t.name.clone()).collect(),
        labels: tools.iter().map(|t| t.label.clone()).collect(),
        descriptions: tools.iter().map(|t| t.description.clone()).collect(),
      };
      // The shape's words (names split, descriptions), to draw queries from.
      let mut words: Vec<String> = Vec::new();
      for t in tools.iter().take(200) {
        for w in t
          .name
          .split('_')
          .chain(t.description.split(|c: char| !c.is_alphanumeric()))
        {
          if !w.is_empty() && !words.iter().any(|x| x == w) {
            words.push(w.to_lowercase());
          }
        }
      }
      let mut qs: Vec<String> = kinds(shape).into_iter().map(|(_, q)| q).collect();
      let rounds = if size >= 10_000 { 40 } else { 120 };
      for _ in 0..rounds {
        let q = match r.next(5) {
          // A tool's own name, or its words.
          0 => tools[r.next(size)].name.clone(),
          1 => tools[r.next(size)].name.replace('_', " "),
          // A prefix of a word.
          2 => {
            let w = &words[r.next(words.len())];
            w.chars().take(2 + r.next(4)).collect()
          }
          _ => {
            let k = 1 + r.next(6);
            (0..k)
              .map(|_| words[r.next(words.len())].clone())
              .collect::<Vec<_>>()
              .join(" ")
          }
        };
        qs.push(q);
      }
      checked += check(&case, &qs, &[1, 3, 10, 50]);
    }
  }
  println!("checked {checked}");
}

/// Queries over the caps: pruned and reference read the same first part.
#[test]
fn differential_long_queries() {
  let mut r = Rng(0x1010_2020_3030_4040);
  let case = catalog(&mut r, 1_500);
  let mut qs = Vec::new();
  for _ in 0..30 {
    let k = 20 + r.next(200);
    qs.push(sentence(&mut r, k, " "));
  }
  qs.push("data ".repeat(400));
  qs.push(format!("{} web search", "x".repeat(600)));
  check(&case, &qs, &[1, 5, 20]);
}
