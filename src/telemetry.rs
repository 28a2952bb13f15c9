//! Counters and events: the `telemetry` of every result, the host-only `run.telemetry`, and
//! the `CodeModeEvent`s sent to `onEvent`.

use crate::catalog::{Catalog, Source};
use crate::surface::VISIBLE_TOOLS;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// Cumulative per-run counters.
#[derive(Default)]
pub struct Counters {
  pub searches: AtomicU64,
  pub describes: AtomicU64,
  pub calls: AtomicU64,
  pub execs: AtomicU64,
  pub waits: AtomicU64,
  pub typescript_transforms: AtomicU64,
  pub suspended: AtomicU64,
  pub resumed: AtomicU64,
  pub expired: AtomicU64,
  pub aborted: AtomicU64,
  pub peak_snapshot_bytes: AtomicU64,
}

fn get(counter: &AtomicU64) -> u64 {
  counter.load(Ordering::Relaxed)
}

impl Counters {
  pub fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
  }

  pub fn record_snapshot(&self, bytes: usize) {
    self
      .peak_snapshot_bytes
      .fetch_max(bytes as u64, Ordering::Relaxed);
  }

  /// `CodeModeTelemetry` as JSON text: what every result carries (safe to show the model).
  pub fn result_json(&self, catalog: &Catalog) -> String {
    format!(
      "{{\"catalogSize\":{},\"sources\":{{\"openclaw\":{},\"mcp\":{},\"client\":{}}},\
       \"searchCount\":{},\"describeCount\":{},\"callCount\":{},\"visibleTools\":[\"{}\",\"{}\"]}}",
      catalog.len(),
      catalog.count(Source::OpenClaw),
      catalog.count(Source::Mcp),
      catalog.count(Source::Client),
      get(&self.searches),
      get(&self.describes),
      get(&self.calls),
      VISIBLE_TOOLS[0],
      VISIBLE_TOOLS[1],
    )
  }

  /// `CodeModeRunTelemetry`: the result telemetry plus host-only counters.
  pub fn run_json(&self, catalog: &Catalog, extra: Value) -> Value {
    let mut value: Value = serde_json::from_str(&self.result_json(catalog)).unwrap_or_default();
    let stats = &catalog.stats;
    let more = json!({
      "execCount": get(&self.execs),
      "waitCount": get(&self.waits),
      "typescriptTransforms": get(&self.typescript_transforms),
      "duplicateTools": stats.duplicate_tools,
      "invalidTools": stats.invalid_tools,
      "excludedTools": stats.excluded_tools,
      "nameCollisions": stats.name_collisions.iter()
        .map(|c| json!({ "name": c.name, "ids": c.ids }))
        .collect::<Vec<_>>(),
      "suspendedCells": get(&self.suspended),
      "resumedCells": get(&self.resumed),
      "expiredCells": get(&self.expired),
      "abortedCells": get(&self.aborted),
      "peakSnapshotBytes": get(&self.peak_snapshot_bytes),
    });
    if let (Some(map), Some(more)) = (value.as_object_mut(), more.as_object()) {
      map.extend(more.clone());
      if let Some(extra) = extra.as_object() {
        map.extend(extra.clone());
      }
    }
    value
  }
}
