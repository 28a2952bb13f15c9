//! Counters and events: the `telemetry` of every result, the host-only `run.telemetry`, and
//! the `CodeModeEvent`s sent to `onEvent`.

use crate::catalog::{Catalog, Source};
use crate::protocol::types::{
  CodeModeHiddenNamespace, CodeModeNameCollision, CodeModeRunTelemetry, CodeModeSources,
  CodeModeTelemetry,
};
use crate::surface::VISIBLE_TOOLS;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a run adds to its counters' telemetry.
pub struct RunState {
  pub visible_namespaces: Vec<String>,
  pub hidden_namespaces: Vec<CodeModeHiddenNamespace>,
  pub live_cells: usize,
  pub suspended_cells_in_process: usize,
}

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

fn sources(catalog: &Catalog) -> CodeModeSources {
  let n = |source| catalog.count(source) as u32;
  CodeModeSources {
    openclaw: n(Source::OpenClaw),
    mcp: n(Source::Mcp),
    client: n(Source::Client),
  }
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

  /// `CodeModeTelemetry`: what every result carries (safe to show the model).
  pub fn result(&self, catalog: &Catalog) -> CodeModeTelemetry {
    CodeModeTelemetry {
      catalog_size: catalog.len() as u32,
      sources: sources(catalog),
      search_count: get(&self.searches) as u32,
      describe_count: get(&self.describes) as u32,
      call_count: get(&self.calls) as u32,
      visible_tools: VISIBLE_TOOLS,
    }
  }

  /// `CodeModeRunTelemetry`: the result telemetry's counts plus host-only counters; the
  /// run adds what only it knows (`live`).
  pub fn run(&self, catalog: &Catalog, live: RunState) -> CodeModeRunTelemetry {
    let stats = &catalog.stats;
    let n = |count: usize| count as u32;
    CodeModeRunTelemetry {
      catalog_size: n(catalog.len()),
      sources: sources(catalog),
      search_count: get(&self.searches) as u32,
      describe_count: get(&self.describes) as u32,
      call_count: get(&self.calls) as u32,
      visible_tools: VISIBLE_TOOLS.iter().map(|t| t.to_string()).collect(),
      exec_count: get(&self.execs) as u32,
      wait_count: get(&self.waits) as u32,
      typescript_transforms: get(&self.typescript_transforms) as u32,
      duplicate_tools: stats.duplicate_tools,
      invalid_tools: stats.invalid_tools,
      excluded_tools: stats.excluded_tools,
      name_collisions: stats
        .name_collisions
        .iter()
        .map(|c| CodeModeNameCollision {
          name: c.name.clone(),
          ids: c.ids.clone(),
        })
        .collect(),
      suspended_cells: get(&self.suspended) as u32,
      resumed_cells: get(&self.resumed) as u32,
      expired_cells: get(&self.expired) as u32,
      aborted_cells: get(&self.aborted) as u32,
      peak_snapshot_bytes: get(&self.peak_snapshot_bytes) as f64,
      visible_namespaces: live.visible_namespaces,
      hidden_namespaces: live.hidden_namespaces,
      live_cells: n(live.live_cells),
      suspended_cells_in_process: n(live.suspended_cells_in_process),
    }
  }
}
