//! A catalog built off the caller's thread.
//!
//! A gateway's turn builds a run over its tools on Node's main thread. A new large catalog
//! (10,000 tools) takes tens of milliseconds to parse and build; the JS layer keeps built
//! catalogs by content (`lib/catalog-cache.js`) and, while this builds on its own thread,
//! records the snapshot it will compare later turns' tools with, so the two costs overlap
//! instead of adding up. The search index of a large catalog is built on the same thread right
//! after, so the first search does not pay for it inside a cell.

use super::Catalog;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, OnceLock};

/// Below this much JSON text a catalog is built in well under a millisecond, less than a thread
/// costs to start: it is built on the caller's thread.
pub const BACKGROUND_FROM_BYTES: usize = 64 << 10;
/// From this many entries the search index is built as soon as the catalog is.
pub const WARM_INDEX_FROM: usize = 1_000;

/// What a catalog built from `json` holds, roughly: its entries about twice the text, and the
/// search index.
pub fn weight(json: &str) -> usize {
  json.len() * 3
}

/// Catalogs built so far (tests count them to see what was reused).
static BUILDS: AtomicUsize = AtomicUsize::new(0);

/// A building thread's answer, and the text to build from here if the thread never gives one.
type Pending = (Receiver<Arc<Catalog>>, Arc<str>);

/// A catalog that is built, or being built on a thread of its own.
pub struct Building {
  ready: OnceLock<Arc<Catalog>>,
  pending: Mutex<Option<Pending>>,
}

impl Building {
  /// Starts building the catalog of the gateway's tools as JSON text (unparseable text is an
  /// empty catalog), and its search index if it is large.
  pub fn start(json: String) -> Building {
    Building::start_with(json, true)
  }

  /// As [`Building::start`], for a copy that is never searched (the addon's: searches run in
  /// the sandbox processes).
  pub fn start_without_index(json: String) -> Building {
    Building::start_with(json, false)
  }

  fn start_with(json: String, index: bool) -> Building {
    BUILDS.fetch_add(1, Ordering::Relaxed);
    let building = Building {
      ready: OnceLock::new(),
      pending: Mutex::new(None),
    };
    if json.len() < BACKGROUND_FROM_BYTES {
      let _ = building.ready.set(Arc::new(Catalog::from_json(&json)));
      return building;
    }
    let json: Arc<str> = json.into();
    let text = json.clone();
    let (send, receive) = sync_channel(1);
    // A thread that cannot start drops the sender with its closure: `get` then builds here.
    let _ = std::thread::Builder::new()
      .name("catalog-build".into())
      .spawn(move || {
        let catalog = Arc::new(Catalog::from_json(&text));
        drop(text);
        let _ = send.send(catalog.clone());
        if index && catalog.len() >= WARM_INDEX_FROM {
          catalog.warm_index();
        }
      });
    *building.pending.lock() = Some((receive, json));
    building
  }

  /// The catalog, waiting for its thread if it is still building. Should the thread not have
  /// started, or have died without an answer, it is built here.
  pub fn get(&self) -> Arc<Catalog> {
    self
      .ready
      .get_or_init(|| {
        let (receive, json) = self
          .pending
          .lock()
          .take()
          .unwrap_or_else(|| panic!("this catalog's build failed before (see the first error)"));
        receive
          .recv()
          .unwrap_or_else(|_| Arc::new(Catalog::from_json(&json)))
      })
      .clone()
  }
}

/// Catalogs built so far, for tests.
#[cfg_attr(not(any(test, feature = "testing")), allow(dead_code))]
pub fn builds() -> usize {
  BUILDS.load(Ordering::Relaxed)
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
  fn small_and_large_catalogs_build_alike() {
    let small = Building::start(tools(3, "small"));
    assert_eq!(small.get().len(), 3);
    let large = tools(2_000, "large");
    assert!(large.len() >= BACKGROUND_FROM_BYTES);
    let building = Building::start(large);
    let catalog = building.get();
    assert_eq!(catalog.len(), 2_000);
    assert!(Arc::ptr_eq(&catalog, &building.get()));
    assert!(Building::start("not json".into()).get().is_empty());
  }
}
