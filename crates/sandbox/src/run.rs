//! A run as the sandbox process knows it: the catalog, limits and namespaces its cells' VMs
//! serve, and where the engine's reports about its cells go. It is the engine's [`Host`] for
//! every cell of the run in this process; the addon's half of the run (scope, tokens, events,
//! results) lives in the root crate's `src/run.rs` and `src/run/`.

use crate::Sink;
use crate::mcp::McpSurface;
use code_mode_catalog::building::Building;
use code_mode_catalog::calls::{self, NestedCall};
use code_mode_catalog::{Catalog, SearchResult};
use code_mode_engine::{Ended, Guest, Host, Limits};
use code_mode_protocol::error::{CODE_MODE_NAMES, LimitNames, TOOL_SEARCH_NAMES};
use code_mode_protocol::wire::{Counts, GuestKind, Namespace, Report, RunLimits, RunSpec};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// What the run's cells did since its last report, counted here and added up by the addon.
#[derive(Default)]
pub struct Counters {
  pub searches: AtomicU32,
  pub describes: AtomicU32,
  pub calls: AtomicU32,
  pub typescript_transforms: AtomicU32,
}

impl Counters {
  pub fn bump(counter: &AtomicU32) {
    counter.fetch_add(1, Ordering::Relaxed);
  }

  /// Takes the counts so far (each count is reported once).
  pub fn take(&self) -> Counts {
    let take = |c: &AtomicU32| c.swap(0, Ordering::Relaxed);
    Counts {
      searches: take(&self.searches),
      describes: take(&self.describes),
      calls: take(&self.calls),
      typescript_transforms: take(&self.typescript_transforms),
    }
  }
}

pub struct GuestRun {
  pub id: u64,
  /// The agent's `runId`.
  pub label: String,
  /// Whose cells these are (`RunSpec::tenant`).
  pub tenant: u64,
  pub guest: &'static Guest<GuestRun>,
  /// Which host's cells it runs: what its searches reach and how its messages name things.
  kind: GuestKind,
  pub settings: RunLimits,
  limits: Limits,
  building: Arc<Building>,
  catalog: OnceLock<Arc<Catalog>>,
  mcp: OnceLock<McpSurface>,
  namespaces: Vec<Namespace>,
  pub counters: Counters,
  /// Tool Search's `tool_call` cells: the one call each makes, by cell (taken once).
  prepared: Mutex<HashMap<u64, (String, String)>>,
  sink: Arc<dyn Sink>,
}

impl GuestRun {
  pub fn new(
    spec: RunSpec,
    guest: &'static Guest<GuestRun>,
    building: Arc<Building>,
    sink: Arc<dyn Sink>,
  ) -> GuestRun {
    let s = &spec.limits;
    let limits = Limits {
      timeout: Duration::from_millis(s.timeout_ms.into()),
      memory_limit_bytes: s.memory_limit_bytes as usize,
      max_output_bytes: s.max_output_bytes as usize,
      max_snapshot_bytes: s.max_snapshot_bytes as usize,
      snapshot_ttl: Duration::from_secs(s.snapshot_ttl_seconds.into()),
      names: match spec.guest {
        GuestKind::CodeMode => &CODE_MODE_NAMES,
        GuestKind::ToolSearch => &TOOL_SEARCH_NAMES,
      },
    };
    GuestRun {
      id: spec.run,
      label: spec.label,
      tenant: spec.tenant,
      guest,
      kind: spec.guest,
      settings: spec.limits,
      limits,
      building,
      catalog: OnceLock::new(),
      mcp: OnceLock::new(),
      namespaces: spec.namespaces,
      counters: Counters::default(),
      prepared: Mutex::new(HashMap::new()),
      sink,
    }
  }

  /// How this run's users know its limits (failure messages name them so).
  pub fn limits_named(&self) -> &'static LimitNames {
    self.limits.names
  }

  /// The run's catalog (waiting for its build the first time, on a worker).
  pub fn catalog(&self) -> &Catalog {
    self.catalog.get_or_init(|| self.building.get())
  }

  /// The number of hits a search asked for (`None`: the default), clamped to `maxSearchLimit`,
  /// or why it is refused.
  pub fn search_limit(&self, limit: Option<f64>) -> Result<usize, &'static str> {
    match limit {
      None => Ok(self.settings.search_default_limit as usize),
      Some(n) if n.is_finite() && n.fract() == 0.0 && n >= 1.0 => {
        Ok(n.min(self.settings.max_search_limit as f64) as usize)
      }
      Some(_) => Err("limit must be a positive integer."),
    }
  }

  /// A guest's search, counted: code mode's `tools.search` reaches the tools its cells can call
  /// by id (no MCP entries: those are `MCP.<server>`), Tool Search's the whole catalog.
  pub fn search(&self, query: &str, limit: usize) -> SearchResult<'_> {
    Counters::bump(&self.counters.searches);
    match self.kind {
      GuestKind::CodeMode => self.catalog().search_result(query, limit),
      GuestKind::ToolSearch => self.catalog().search_all_result(query, limit),
    }
  }

  /// A guest's describe, counted: the entry with its `parameters` as JSON text, or `None` when
  /// the id is not one this guest can use (as [`GuestRun::search`] scopes them).
  pub fn describe(&self, id: &str) -> Option<String> {
    Counters::bump(&self.counters.describes);
    match self.kind {
      GuestKind::CodeMode => self
        .catalog()
        .guest_entry(id)
        .map(|e| code_mode_catalog::compact(e, true).to_json()),
      // Tool Search's describe is a hit's entry (with its `input` and `output` hints, as
      // OpenClaw's is), the input schema and a trusted tool's output schema.
      GuestKind::ToolSearch => self.catalog().get(id).map(|e| {
        code_mode_catalog::compact(e, true)
          .with_hints(e)
          .with_output_schema(e)
          .to_json()
      }),
    }
  }

  /// Tool Search's hit for `id` as JSON text, not counted as a describe: the `tool` of the
  /// `{ tool, result }` a guest's `openclaw.tools.call` resolves to (as OpenClaw's does).
  pub fn hit(&self, id: &str) -> Option<String> {
    self
      .catalog()
      .get(id)
      .map(|e| code_mode_catalog::compact(e, false).with_hints(e).to_json())
  }

  /// What a guest is told of an id it cannot use: code mode's short answer, or Tool Search's
  /// (the tool may have been denied or removed since it was found: search again).
  pub fn unknown_tool(&self, id: &str) -> String {
    match self.kind {
      GuestKind::CodeMode => format!("Unknown tool id: {id}"),
      GuestKind::ToolSearch => code_mode_catalog::unavailable(id),
    }
  }

  /// The run's MCP namespace and API files (built on first use).
  pub fn mcp(&self) -> &McpSurface {
    self.mcp.get_or_init(|| McpSurface::build(self.catalog()))
  }

  pub fn namespaces(&self) -> &[Namespace] {
    &self.namespaces
  }

  /// Appends one nested call to `out`, the cell's batch being built (see `calls.rs`), and
  /// counts it.
  pub fn write_call(&self, call: NestedCall, out: &mut Vec<u8>) -> Result<(), &'static str> {
    calls::write_call(call, out)?;
    Counters::bump(&self.counters.calls);
    Ok(())
  }

  /// Records the one call a Tool Search `tool_call` cell makes.
  pub fn prepare_call(&self, cell: u64, id: String, input: String) {
    self.prepared.lock().insert(cell, (id, input));
  }

  pub fn has_prepared_call(&self, cell: u64) -> bool {
    self.prepared.lock().contains_key(&cell)
  }

  /// The call a `tool_call` cell makes, once.
  pub fn take_prepared_call(&self, cell: u64) -> Option<(String, String)> {
    self.prepared.lock().remove(&cell)
  }
}

impl Host for GuestRun {
  fn limits(&self) -> &Limits {
    &self.limits
  }

  fn label(&self) -> &str {
    &self.label
  }

  fn tenant(&self) -> u64 {
    self.tenant
  }

  fn send_requests(&self, cell: u64, batch: Vec<u8>) {
    if batch.is_empty() {
      return;
    }
    self.sink.report(Report::Calls {
      run: self.id,
      cell,
      batch: calls::finish_batch(batch),
    });
  }

  fn cancel_requests(&self, cell: u64) {
    self.sink.report(Report::CancelCalls { run: self.id, cell });
  }

  fn ended(&self, ended: Ended) {
    self.prepared.lock().remove(&ended.cell);
    self.sink.report(Report::Ended {
      run: self.id,
      ended: Box::new(ended),
      counts: self.counters.take(),
    });
  }
}
