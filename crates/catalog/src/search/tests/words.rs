//! Text into words and queries into concepts: splitting, stemming, synonyms, phrases and
//! stopwords.

use crate::search::query::concepts;
use crate::search::stem::stem;
use crate::search::text::{index_words, words};

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
