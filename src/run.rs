//! One `CodeModeRun`, the addon's half: its scope, config, catalog, model surface, counters,
//! legs and tokens, exec/wait validation (ARCHITECTURE.md, decision 2), and what becomes of the
//! sandbox's reports about its cells (events and results). Its cells run in a sandbox process
//! (`src/sandbox/`), where `crates/sandbox/src/run.rs` is the other half.
//!
//! Split by concern: this file is the `Run` itself (its options, state, model surface,
//! namespaces, telemetry and sandbox process); `legs` starts and aborts exec/wait legs (admission,
//! resume); `cells` holds the gateway-wide tables of live and parked cells and what parking and
//! losing a cell does to them; `reports` turns the sandbox's reports into events and results;
//! `validate` reads exec and wait inputs.

mod cells;
mod legs;
mod reports;
mod validate;

#[cfg(test)]
pub(crate) use cells::live_process;
pub(crate) use cells::parked_cells;
#[cfg(test)]
pub(crate) use reports::ROUTES;
pub(crate) use validate::{EXEC_KEYS, WAIT_KEYS};

use crate::config::{self, CodeModeConfig};
use crate::error::{CODE_MODE_NAMES, Failure, LimitNames, TOOL_SEARCH_NAMES};
use crate::input::Field;
use crate::namespaces::{self, Hidden, Installed, Registration};
use crate::port::Port;
use crate::protocol::types::{
  CodeModeCellEvent, CodeModeHiddenNamespace, CodeModeInactiveReason, CodeModeRunTelemetry,
  CodeModeTelemetry, ModelToolDefinition,
};
use crate::protocol::{
  Message, event_json,
  result::{self, Status},
};
use crate::sandbox::{self, process::Process};
use crate::surface::{self, SurfaceOptions};
use crate::telemetry::{Counters, RunState};
use code_mode_catalog::building::Building;
use code_mode_catalog::{Catalog, Source};
use code_mode_protocol::wire::{
  Answer, Command, GuestKind, Namespace, RunLimits, RunSpec, SearchQuery,
};
use dashmap::DashMap;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock, Weak};

/// Who a run belongs to: a `runId` token resumes only from the same scope (ARCHITECTURE.md, decision 7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scope {
  pub run_id: String,
  pub session_id: Option<String>,
  pub session_key: Option<String>,
  pub agent_id: Option<String>,
}

impl Scope {
  /// Whose work a run is, for the shares one tenant may hold (parked cells, the sandbox's
  /// workers): its session id, else its session key, else the run itself.
  pub fn tenant(&self) -> (&str, &str) {
    match (&self.session_id, &self.session_key) {
      (Some(id), _) => ("session", id),
      (None, Some(key)) => ("key", key),
      (None, None) => ("run", &self.run_id),
    }
  }

  /// [`Scope::tenant`] as the sandbox's workers know it (`RunSpec::tenant`): a hash, keyed per
  /// gateway process, with the top bit clear (set, it names an executor cell).
  pub fn tenant_hash(&self) -> u64 {
    use std::hash::BuildHasher;
    static KEY: LazyLock<std::hash::RandomState> = LazyLock::new(std::hash::RandomState::new);
    KEY.hash_one(self.tenant()) >> 1
  }
}

/// A built catalog, shared by every run over the same tools (`NativeCatalog`): the addon's copy
/// for the views it answers itself, and the JSON text each sandbox process builds its own from.
pub struct CatalogHandle {
  pub id: u64,
  json: Arc<str>,
  building: Building,
  /// Processes that were sent this catalog (told to forget it when it is dropped).
  told: Mutex<Vec<Weak<Process>>>,
}

static NEXT_CATALOG: AtomicU64 = AtomicU64::new(1);

impl CatalogHandle {
  pub fn new(json: String) -> CatalogHandle {
    let json: Arc<str> = json.into();
    CatalogHandle {
      id: NEXT_CATALOG.fetch_add(1, Ordering::Relaxed),
      building: Building::start_without_index(json.to_string()),
      json,
      told: Mutex::new(Vec::new()),
    }
  }

  pub fn get(&self) -> Arc<Catalog> {
    self.building.get()
  }

  /// Sends the catalog to `process` unless it has it.
  fn tell(&self, process: &Arc<Process>) {
    if process.told.lock().catalogs.insert(self.id) {
      process.send(&Command::Catalog {
        id: self.id,
        tools_json: self.json.to_string(),
      });
      self.told.lock().push(Arc::downgrade(process));
    }
  }
}

impl Drop for CatalogHandle {
  fn drop(&mut self) {
    for process in self.told.get_mut().drain(..).filter_map(|p| p.upgrade()) {
      process.told.lock().catalogs.remove(&self.id);
      process.send(&Command::ForgetCatalog { id: self.id });
    }
  }
}

/// What `CodeModeRun.create` passes down.
pub struct RunOptions {
  pub config: Field,
  pub scope: Scope,
  pub catalog: Arc<CatalogHandle>,
  pub disable_tools: bool,
  pub raw_model_call: bool,
  /// The kind of VM its cells run in.
  pub guest: GuestKind,
}

/// Where a leg is: waiting for admission, or sent to the cell's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LegState {
  Queued(u64),
  Sent(u64),
}

pub struct Run {
  pub id: u64,
  pub scope: Scope,
  pub config: CodeModeConfig,
  limits: RunLimits,
  guest: GuestKind,
  pub active: bool,
  /// Why `active` is false (`None` when it is true).
  pub inactive_reason: Option<CodeModeInactiveReason>,
  pub catalog_handle: Arc<CatalogHandle>,
  pub catalog: Arc<Catalog>,
  model_tools: OnceLock<Vec<ModelToolDefinition>>,
  /// Namespaces visible to this run (set once, by `install_namespaces`).
  namespaces: OnceLock<(Vec<Installed>, Vec<Hidden>)>,
  pub port: Arc<dyn Port>,
  pub telemetry: Counters,
  /// Cells this run created or resumed, for `abort()`.
  cells: Mutex<HashSet<u64>>,
  legs: Mutex<HashMap<u32, LegState>>,
  /// What to undo for a queued leg that never starts.
  undo: Mutex<HashMap<u32, Box<dyn FnOnce() + Send>>>,
  /// The process this run's new cells go to.
  process: Mutex<Option<Arc<Process>>>,
  /// Processes that were told about this run (told to forget it when it is dropped).
  told: Mutex<Vec<Weak<Process>>>,
  aborted: AtomicBool,
}

/// An exec or wait call as the JS layer starts it.
pub struct LegStart {
  /// The JS layer's key for the leg's promise.
  pub id: u32,
  pub tool_call_id: Option<String>,
  /// The leg's AbortSignal had already fired.
  pub aborted: bool,
}

static NEXT_RUN: AtomicU64 = AtomicU64::new(1);
/// Runs by id, for the sandbox's reports.
static RUNS: LazyLock<DashMap<u64, Weak<Run>>> = LazyLock::new(DashMap::new);

impl Run {
  pub fn new(options: RunOptions, port: Arc<dyn Port>) -> Arc<Run> {
    let config = config::resolve(&options.config);
    let catalog = options.catalog.get();
    let inactive_reason = if !config.enabled {
      Some(CodeModeInactiveReason::Disabled)
    } else if options.raw_model_call {
      Some(CodeModeInactiveReason::RawModelCall)
    } else if options.disable_tools {
      Some(CodeModeInactiveReason::ToolsDisabled)
    } else if catalog.is_empty() {
      Some(CodeModeInactiveReason::NoTools)
    } else {
      None
    };
    let limits = RunLimits {
      timeout_ms: config.timeout_ms,
      memory_limit_bytes: config.memory_limit_bytes.into(),
      max_output_bytes: config.max_output_bytes.into(),
      max_snapshot_bytes: config.max_snapshot_bytes.into(),
      snapshot_ttl_seconds: config.snapshot_ttl_seconds,
      max_tool_input_bytes: config.max_tool_input_bytes.into(),
      max_pending_tool_calls: config.max_pending_tool_calls,
      search_default_limit: config.search_default_limit,
      max_search_limit: config.max_search_limit,
    };
    let run = Arc::new(Run {
      id: NEXT_RUN.fetch_add(1, Ordering::Relaxed),
      scope: options.scope,
      limits,
      guest: options.guest,
      config,
      active: inactive_reason.is_none(),
      inactive_reason,
      catalog_handle: options.catalog,
      catalog,
      model_tools: OnceLock::new(),
      namespaces: OnceLock::new(),
      port,
      telemetry: Counters::default(),
      cells: Mutex::new(HashSet::new()),
      legs: Mutex::new(HashMap::new()),
      undo: Mutex::new(HashMap::new()),
      process: Mutex::new(None),
      told: Mutex::new(Vec::new()),
      aborted: AtomicBool::new(false),
    });
    RUNS.insert(run.id, Arc::downgrade(&run));
    run
  }

  /// `[exec, wait]` when active (namespace prompts included), `[]` otherwise.
  pub fn model_tools(&self) -> &[ModelToolDefinition] {
    self.model_tools.get_or_init(|| {
      if !self.active {
        return Vec::new();
      }
      let docs: Vec<surface::NamespaceDoc> = self
        .installed_namespaces()
        .iter()
        .map(|ns| surface::NamespaceDoc {
          global_name: &ns.registration.global_name,
          description: &ns.registration.description,
          prompt: ns.registration.prompt.as_deref(),
        })
        .collect();
      surface::model_tools(&SurfaceOptions {
        languages: &self.config.languages,
        has_mcp: self.catalog.count(Source::Mcp) > 0,
        namespaces: &docs,
      })
    })
  }

  /// The number of hits a search asked for (`None`: the default), clamped to `maxSearchLimit`,
  /// or why it is refused.
  pub fn search_limit(&self, limit: Option<f64>) -> Result<usize, &'static str> {
    let config = &self.config;
    match limit {
      None => Ok(config.search_default_limit as usize),
      Some(n) if n.is_finite() && n.fract() == 0.0 && n >= 1.0 => {
        Ok(n.min(config.max_search_limit as f64) as usize)
      }
      Some(_) => Err("limit must be a positive integer."),
    }
  }

  /// Namespaces of `registry` (the calling realm's) this run's catalog makes visible (before
  /// their scopes are built).
  pub fn namespace_candidates(&self, registry: &namespaces::Registry) -> Vec<Registration> {
    if self.active {
      namespaces::visible(registry, &self.catalog)
    } else {
      Vec::new()
    }
  }

  /// Takes the scopes the JS layer built (once) and returns the namespaces hidden for this run,
  /// which the JS layer reports as `namespace_hidden` events.
  pub fn install_namespaces(
    &self,
    registry: &namespaces::Registry,
    scopes: &[namespaces::NamespaceScope],
  ) -> Vec<Hidden> {
    let candidates = self.namespace_candidates(registry);
    let mut result = namespaces::install(&self.catalog, &candidates, scopes);
    if self.active {
      result
        .1
        .extend(namespaces::not_visible(registry, &self.catalog));
    }
    let hidden = result.1.clone();
    let _ = self.namespaces.set(result);
    hidden
  }

  pub fn installed_namespaces(&self) -> &[Installed] {
    self
      .namespaces
      .get()
      .map_or(&[], |(installed, _)| installed.as_slice())
  }

  pub fn result_telemetry(&self) -> CodeModeTelemetry {
    self.telemetry.result(&self.catalog)
  }

  pub fn run_telemetry(&self) -> CodeModeRunTelemetry {
    let (visible_namespaces, hidden_namespaces) = match self.namespaces.get() {
      Some((installed, hidden)) => (
        installed
          .iter()
          .map(|ns| ns.registration.id.clone())
          .collect(),
        hidden
          .iter()
          .map(|h| CodeModeHiddenNamespace {
            id: h.id.clone(),
            reason: h.reason.clone(),
          })
          .collect(),
      ),
      None => (Vec::new(), Vec::new()),
    };
    let state = RunState {
      visible_namespaces,
      hidden_namespaces,
      live_cells: self.cells.lock().len(),
      suspended_cells_in_process: parked_cells(),
    };
    self.telemetry.run(&self.catalog, state)
  }

  fn failed(&self, failure: Failure) -> String {
    result::to_json(
      Status::Failed(&failure),
      Vec::new(),
      self.result_telemetry(),
    )
  }

  /// Why a tool input of JSON text `json` is over this run's `maxToolInputBytes`, in the words
  /// the sandbox refuses a guest's call with; `None` when it fits.
  pub fn tool_input_refusal(&self, json: &str) -> Option<String> {
    code_mode_protocol::parsed::over_input_cap(
      json.len(),
      code_mode_protocol::parsed::parsed_bytes(json),
      self.config.max_tool_input_bytes as usize,
      self.limit_names().max_tool_input,
    )
  }

  /// How this run's users know its limits: code mode's keys, or Tool Search's.
  fn limit_names(&self) -> &'static LimitNames {
    match self.guest {
      GuestKind::CodeMode => &CODE_MODE_NAMES,
      GuestKind::ToolSearch => &TOOL_SEARCH_NAMES,
    }
  }

  /// Tool Search's structured `tool_search`, in the run's sandbox process: every query of the
  /// call in one request. `respond` gets a JSON array of each query's hits, in order, or the
  /// message of a refusal (a bad limit refuses the whole call, before the sandbox is asked).
  pub fn search(
    self: &Arc<Self>,
    queries: Vec<SearchQuery>,
    respond: impl FnOnce(Result<String, String>) + Send + 'static,
  ) {
    if let Some(Err(message)) = queries
      .iter()
      .map(|q| self.search_limit(q.limit))
      .find(Result::is_err)
    {
      return respond(Err(message.to_string()));
    }
    let process = match self.process() {
      Ok(process) => process,
      Err(failure) => return respond(Err(failure.message)),
    };
    self.define_in(&process);
    let request = sandbox::next_request();
    let run = self.clone();
    let count = queries.len();
    process.request(
      request,
      &Command::Search {
        request,
        run: self.id,
        queries,
      },
      Box::new(move |answer| {
        respond(match answer {
          Answer::Text(hits) => {
            // One search per query, as the model asked for them.
            run
              .telemetry
              .searches
              .fetch_add(count as u64, std::sync::atomic::Ordering::Relaxed);
            Ok(hits)
          }
          Answer::Error(message) => Err(message),
          _ => Err("the sandbox answered a search with something else".into()),
        })
      }),
    );
  }

  /// The process this run's new cells go to (the same one while it takes work).
  fn process(&self) -> Result<Arc<Process>, Failure> {
    let mut current = self.process.lock();
    if let Some(process) = current.as_ref()
      && process.phase() == sandbox::process::Phase::Accepting
    {
      return Ok(process.clone());
    }
    // Before the run's first process: its reports go to this host from then on.
    sandbox::route_runs(reports::ROUTES);
    let process = sandbox::process_for(self.id)?;
    *current = Some(process.clone());
    Ok(process)
  }

  /// Sends the run (and its catalog) to `process` unless it has them.
  fn define_in(&self, process: &Arc<Process>) {
    self.catalog_handle.tell(process);
    if !process.told.lock().runs.insert(self.id) {
      return;
    }
    let namespaces = self
      .installed_namespaces()
      .iter()
      .map(|ns| Namespace {
        id: ns.registration.id.clone(),
        global_name: ns.registration.global_name.clone(),
        data: ns.data.clone(),
        callables: ns
          .callables
          .iter()
          .map(|(path, entry)| (path.clone(), *entry as u32))
          .collect(),
      })
      .collect();
    process.send(&Command::Run(Box::new(RunSpec {
      run: self.id,
      label: self.scope.run_id.clone(),
      tenant: self.scope.tenant_hash(),
      catalog: self.catalog_handle.id,
      guest: self.guest,
      limits: self.limits.clone(),
      namespaces,
    })));
    self.told.lock().push(Arc::downgrade(process));
  }

  fn event(&self, event: CodeModeCellEvent) {
    self.port.send(Message::Event {
      payload: event_json(&event),
    });
  }
}

/// Runs alive now (a run is dropped when its JavaScript object is collected).
#[cfg(feature = "testing")]
pub fn live_runs() -> usize {
  RUNS.len()
}

impl Drop for Run {
  fn drop(&mut self) {
    RUNS.remove(&self.id);
    for process in self.told.get_mut().drain(..).filter_map(|p| p.upgrade()) {
      process.told.lock().runs.remove(&self.id);
      process.send(&Command::ForgetRun { run: self.id });
    }
  }
}
