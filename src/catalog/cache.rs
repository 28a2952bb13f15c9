//! Built catalogs shared between runs, keyed by content.
//!
//! A gateway builds a new tool array every turn, usually with the same tools: parsing it and
//! building its catalog (and, on first search, its index) again each time cost most of a
//! `CodeModeRun.create` at 10,000 tools. The cache keys on the JSON text the JS layer sends
//! (`NativeRunOptions::tools_json`): equal text, equal catalog. Lookups compare lengths first and
//! then bytes (a `memcmp`, no hashing of megabytes per run). Bounded in entries and bytes; the
//! least recently used entry goes first.

use super::Catalog;
use parking_lot::Mutex;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Catalogs kept at most.
pub const MAX_ENTRIES: usize = 16;
/// Bytes kept at most, counted as [`weight`] estimates them.
pub const MAX_BYTES: usize = 256 << 20;
/// Below this many tools a catalog is built in well under a millisecond: not worth a slot.
pub const MIN_TOOLS: usize = 64;
/// From this many entries the search index is built on a background thread as soon as the
/// catalog is, so the first search of a new large catalog does not pay for it inside a cell.
pub const WARM_INDEX_FROM: usize = 1_000;

struct Slot {
  json: Arc<str>,
  catalog: Arc<Catalog>,
  weight: usize,
  used: u64,
}

#[derive(Default)]
struct Cache {
  slots: Vec<Slot>,
  bytes: usize,
  clock: u64,
}

/// Catalogs built (not found in the cache) so far.
static BUILDS: AtomicUsize = AtomicUsize::new(0);

static CACHE: Mutex<Cache> = Mutex::new(Cache {
  slots: Vec::new(),
  bytes: 0,
  clock: 0,
});

/// What a catalog built from `json` holds, roughly: its text once in the cache key, about twice
/// again in entries, and the index.
fn weight(json: &str) -> usize {
  json.len() * 4
}

/// The catalog for the gateway's tools as JSON text: the cached one when the same text was seen
/// before, else a new one (cached when large enough). Unparseable text is an empty catalog.
pub fn shared(json: &str) -> Arc<Catalog> {
  if let Some(catalog) = lookup(json) {
    return catalog;
  }
  BUILDS.fetch_add(1, Ordering::Relaxed);
  let tools = serde_json::from_str(json).unwrap_or(serde_json::Value::Null);
  let catalog = Arc::new(Catalog::build(&tools));
  drop(tools);
  if catalog.len() >= WARM_INDEX_FROM {
    let warm = catalog.clone();
    // Best effort: if no thread can be started, the first search builds the index itself.
    let _ = std::thread::Builder::new()
      .name("catalog-index".into())
      .spawn(move || warm.warm_index());
  }
  if catalog.len() >= MIN_TOOLS {
    insert(json, &catalog);
  }
  catalog
}

fn lookup(json: &str) -> Option<Arc<Catalog>> {
  let mut cache = CACHE.lock();
  cache.clock += 1;
  let now = cache.clock;
  let slot = cache
    .slots
    .iter_mut()
    .find(|s| s.json.len() == json.len() && *s.json == *json)?;
  slot.used = now;
  Some(slot.catalog.clone())
}

fn insert(json: &str, catalog: &Arc<Catalog>) {
  let weight = weight(json);
  if weight > MAX_BYTES {
    return;
  }
  let mut cache = CACHE.lock();
  if cache.slots.iter().any(|s| *s.json == *json) {
    return;
  }
  while cache.slots.len() >= MAX_ENTRIES || cache.bytes + weight > MAX_BYTES {
    let Some(oldest) = (0..cache.slots.len()).min_by_key(|&i| cache.slots[i].used) else {
      break;
    };
    let slot = cache.slots.swap_remove(oldest);
    cache.bytes -= slot.weight;
  }
  cache.clock += 1;
  let used = cache.clock;
  cache.bytes += weight;
  cache.slots.push(Slot {
    json: json.into(),
    catalog: catalog.clone(),
    weight,
    used,
  });
}

/// Catalogs built so far (cache misses), for tests.
#[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
pub fn builds() -> usize {
  BUILDS.load(Ordering::Relaxed)
}

/// Catalogs cached now and the bytes they are counted as.
#[cfg(test)]
pub fn stats() -> (usize, usize) {
  let cache = CACHE.lock();
  (cache.slots.len(), cache.bytes)
}

/// Empties the cache (tests measuring a cold build).
#[cfg_attr(not(feature = "testing"), allow(dead_code))]
pub fn clear() {
  let mut cache = CACHE.lock();
  cache.slots.clear();
  cache.bytes = 0;
}

#[cfg(test)]
mod tests {
  use super::*;

  fn tools(n: usize, tag: &str) -> String {
    let list: Vec<serde_json::Value> = (0..n)
      .map(
        |i| serde_json::json!({ "name": format!("{tag}_tool_{i}"), "description": "does things" }),
      )
      .collect();
    serde_json::Value::Array(list).to_string()
  }

  #[test]
  fn same_text_same_catalog_and_bounded() {
    let a = tools(100, "cache_a");
    let first = shared(&a);
    let again = shared(&a);
    assert!(Arc::ptr_eq(&first, &again));
    // Small catalogs are not kept.
    let small = tools(3, "cache_small");
    assert!(!Arc::ptr_eq(&shared(&small), &shared(&small)));
    for i in 0..MAX_ENTRIES + 4 {
      shared(&tools(70, &format!("cache_fill_{i}")));
    }
    let (entries, bytes) = stats();
    assert!(entries <= MAX_ENTRIES && bytes <= MAX_BYTES);
  }
}
