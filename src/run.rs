//! One `CodeModeRun`, the addon's half: its scope, config, catalog, model surface, counters,
//! legs and tokens, exec/wait validation (ARCHITECTURE.md, decision 2), and what becomes of the
//! sandbox's reports about its cells (events and results). Its cells run in a sandbox process
//! (`src/sandbox/`), where `crates/sandbox/src/run.rs` is the other half.

use crate::admission::{self, Admitted};
use crate::config::{self, CodeModeConfig};
use crate::error::{
  CODE_MODE_NAMES, ErrorCode, Failure, FailurePhase, LimitNames, TOOL_SEARCH_NAMES, messages,
};
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
use code_mode_protocol::leg::{DropReason, Ended, LegEnd, LegTag};
use code_mode_protocol::wire::{
  Answer, Command, Counts, GuestKind, Namespace, Program, RunLimits, RunSpec, Settled,
};
use dashmap::DashMap;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock, Weak};
use std::time::Duration;

/// Largest cell source accepted.
pub const MAX_CODE_BYTES: usize = 1 << 20;

/// Who a run belongs to: a `runId` token resumes only from the same scope (ARCHITECTURE.md, decision 7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scope {
  pub run_id: String,
  pub session_id: Option<String>,
  pub session_key: Option<String>,
  pub agent_id: Option<String>,
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

/// A cell alive in a sandbox process (in a leg or parked), as the addon tracks it.
#[derive(Clone)]
struct LiveCell {
  process: Arc<Process>,
  /// The run driving it now (a `wait` from another run of the same scope adopts it).
  run: Arc<Run>,
  /// Its token, while it is parked or being resumed.
  token: Option<String>,
}

/// A parked cell's token.
#[derive(Clone)]
struct Parked {
  cell: u64,
  scope: Scope,
  resuming: bool,
}

static NEXT_RUN: AtomicU64 = AtomicU64::new(1);
static NEXT_CELL: AtomicU64 = AtomicU64::new(1);
/// Runs by id, for the sandbox's reports.
static RUNS: LazyLock<DashMap<u64, Weak<Run>>> = LazyLock::new(DashMap::new);
/// Every live cell by id (where settles go; what a dead process loses).
static LIVE: LazyLock<DashMap<u64, LiveCell>> = LazyLock::new(DashMap::new);
/// Parked cells by token, in every process.
static TOKENS: LazyLock<DashMap<String, Parked>> = LazyLock::new(DashMap::new);
/// Tokens of parked cells that ended without a leg (lost with their process, or dropped past
/// their snapshot cap), and the failure a later `wait` gets (the most recent few).
static LOST: LazyLock<Mutex<VecDeque<(String, Failure)>>> =
  LazyLock::new(|| Mutex::new(VecDeque::new()));
const MAX_LOST: usize = 256;

/// Code mode's parked cells in the gateway now (every process).
pub fn parked_cells() -> usize {
  TOKENS.len()
}

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

  /// Checks that apply to exec and wait alike.
  fn usable(&self, leg: &LegStart) -> Result<(), Failure> {
    if !self.active {
      return Err(Failure::invalid(messages::DISABLED));
    }
    if leg.aborted || self.aborted.load(Ordering::Acquire) {
      return Err(Failure::new(ErrorCode::Aborted, messages::ABORTED));
    }
    if !self.config.runtime_supported() {
      return Err(Failure::new(
        ErrorCode::RuntimeUnavailable,
        format!(
          "code mode runtime \"{}\" is not available; code mode fails closed.",
          self.config.runtime
        ),
      ));
    }
    Ok(())
  }

  /// Starts an exec leg. Returns the result JSON at once when the input is refused; otherwise
  /// the result arrives as `LegDone { leg }`.
  pub fn exec(self: &Arc<Self>, input: &Field, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.execs);
    let prepared = self
      .usable(&leg)
      .and_then(|_| validate_exec(input, &self.config));
    match prepared {
      Err(failure) => Some(self.failed(failure)),
      Ok((code, typescript)) => {
        self.start_cell(leg, Program::Source { code, typescript });
        None
      }
    }
  }

  /// Tool Search's `tool_call`: a cell that makes one call of catalog tool `id` with `input`
  /// (JSON text), given as data. Same contract as `exec`.
  pub fn exec_call(self: &Arc<Self>, id: String, input: String, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.execs);
    if let Err(failure) = self.usable(&leg) {
      return Some(self.failed(failure));
    }
    self.start_cell(leg, Program::Call { id, input });
    None
  }

  fn start_cell(self: &Arc<Self>, leg: LegStart, program: Program) {
    let cell = NEXT_CELL.fetch_add(1, Ordering::Relaxed);
    let tag = LegTag {
      id: leg.id,
      caller_id: leg.tool_call_id,
    };
    let run = self.clone();
    let start = move || {
      let process = match run.process() {
        Ok(process) => process,
        Err(failure) => return run.unsent(tag.id, failure, true),
      };
      run.define_in(&process);
      sandbox::send_armed(&process, &run.scope.run_id);
      // The leg first: a process that dies from here on fails it (`lose_cell` finds it).
      run.legs.lock().insert(tag.id, LegState::Sent(cell));
      run.track(cell, &process, None);
      let sent = process.send(&Command::Exec {
        run: run.id,
        cell,
        leg: tag.clone(),
        program,
      });
      if !sent {
        run.lose_cell(cell, &process.lost());
      }
    };
    self.admit(leg.id, start, || {});
  }

  /// Admits a leg now or queues it (`start` sends it once admitted); `undo` runs if it never
  /// starts (refused at capacity, or aborted while queued).
  fn admit(
    self: &Arc<Self>,
    leg: u32,
    start: impl FnOnce() + Send + 'static,
    undo: impl FnOnce() + Send + 'static,
  ) {
    let run = self.clone();
    let timeout = Duration::from_millis(self.config.timeout_ms.into());
    // Registered first: the leg can end inside `admit` (started now, or refused).
    self.legs.lock().insert(leg, LegState::Queued(0));
    self.undo.lock().insert(leg, Box::new(undo));
    let starting = self.clone();
    let start = move || {
      starting.undo.lock().remove(&leg);
      start()
    };
    let fail = move |failure: Failure| run.unsent(leg, failure, false);
    if let Admitted::Queued(queued) = admission::admit(timeout, start, fail) {
      let mut legs = self.legs.lock();
      if let Some(state @ LegState::Queued(0)) = legs.get_mut(&leg) {
        *state = LegState::Queued(queued);
      }
    }
  }

  /// A leg that never reached a process ends with `failure`.
  fn unsent(&self, leg: u32, failure: Failure, admitted: bool) {
    if admitted {
      admission::release();
    }
    let undo = self.undo.lock().remove(&leg);
    if let Some(undo) = undo {
      undo();
    }
    self.legs.lock().remove(&leg);
    let result = self.failed(failure);
    self.port.send(Message::LegDone { leg, result });
  }

  /// Starts a wait leg on a suspended cell (same contract as `exec`).
  pub fn wait(self: &Arc<Self>, input: &Field, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.waits);
    if leg.aborted {
      // An already-aborted signal drops the cell it names, as an abort during the leg would.
      if let Ok(token) = validate_wait(input)
        && let Some(parked) = TOKENS.get(&token).map(|p| p.clone())
        && parked.scope == self.scope
      {
        abort_cell(parked.cell);
      }
    }
    let resumed = self
      .usable(&leg)
      .and_then(|_| validate_wait(input))
      .and_then(|token| self.resume(token, leg));
    resumed.err().map(|failure| self.failed(failure))
  }

  fn resume(self: &Arc<Self>, token: String, leg: LegStart) -> Result<(), Failure> {
    let cell = {
      let Some(mut parked) = TOKENS.get_mut(&token) else {
        return Err(
          lost_token(&token).unwrap_or_else(|| Failure::invalid(messages::RUN_UNAVAILABLE)),
        );
      };
      if parked.scope != self.scope {
        return Err(Failure::invalid(messages::WRONG_SESSION));
      }
      if parked.resuming {
        return Err(Failure::invalid(messages::ALREADY_RESUMING));
      }
      parked.resuming = true;
      parked.cell
    };
    let Some(process) = LIVE.get(&cell).map(|live| live.process.clone()) else {
      TOKENS.remove(&token);
      return Err(Failure::invalid(messages::RUN_UNAVAILABLE));
    };
    let tag = LegTag {
      id: leg.id,
      caller_id: leg.tool_call_id,
    };
    // Before the leg can end: a leg's events come before its result.
    Counters::bump(&self.telemetry.resumed);
    self.event(CodeModeCellEvent::CellResumed {
      run_id: self.scope.run_id.clone(),
      cell_run_id: Some(token.clone()),
      tool_call_id: tag.caller_id.clone(),
    });
    let run = self.clone();
    let undo_token = token.clone();
    let start = move || {
      run.define_in(&process);
      sandbox::send_armed(&process, &run.scope.run_id);
      // The leg first: a process that dies from here on fails it (`lose_cell` finds it).
      run.legs.lock().insert(tag.id, LegState::Sent(cell));
      run.track(cell, &process, Some(token.clone()));
      let sent = process.send(&Command::Resume {
        run: run.id,
        cell,
        token,
        leg: tag,
      });
      if !sent {
        run.lose_cell(cell, &process.lost());
      }
    };
    // A wait that never starts leaves the cell parked, resumable again.
    let undo = move || {
      if let Some(mut parked) = TOKENS.get_mut(&undo_token) {
        parked.resuming = false;
      }
    };
    self.admit(leg.id, start, undo);
    Ok(())
  }

  /// A nested call settled in the JS layer.
  #[cfg(test)]
  pub fn settle(&self, cell: u64, call: u32, ok: bool, payload: Option<String>) {
    self.settle_many(cell, std::iter::once((call, ok, payload)));
  }

  /// How this run's users know its limits: code mode's keys, or Tool Search's.
  fn limit_names(&self) -> &'static LimitNames {
    match self.guest {
      GuestKind::CodeMode => &CODE_MODE_NAMES,
      GuestKind::ToolSearch => &TOOL_SEARCH_NAMES,
    }
  }

  /// Nested calls of one cell settled in the JS layer: delivered together, so a cell waiting
  /// on many of them runs once for all that arrived at the same time.
  pub fn settle_many(
    &self,
    cell: u64,
    settled: impl IntoIterator<Item = (u32, bool, Option<String>)>,
  ) {
    let Some(process) = LIVE.get(&cell).map(|live| live.process.clone()) else {
      return;
    };
    let cap = (self.config.memory_limit_bytes / 4) as usize;
    let outcomes = settled
      .into_iter()
      .map(|(call, ok, payload)| match payload {
        Some(p) if p.len() > cap => Settled {
          call,
          ok: false,
          payload: Some(format!(
            "tool result is {} bytes, over the bridge payload cap of {cap} bytes ({} / 4).",
            p.len(),
            self.limit_names().memory
          )),
        },
        payload => Settled { call, ok, payload },
      })
      .collect();
    process.send(&Command::Settle { cell, outcomes });
  }

  /// The exec/wait signal for `leg` fired.
  pub fn abort_leg(&self, leg: u32) {
    let state = self.legs.lock().get(&leg).copied();
    match state {
      Some(LegState::Queued(queued)) if queued != 0 && admission::cancel(queued) => {
        self.unsent(
          leg,
          Failure::new(ErrorCode::Aborted, messages::ABORTED),
          false,
        );
      }
      Some(LegState::Sent(cell)) => abort_cell(cell),
      _ => {}
    }
  }

  /// `run.abort()`: every cell of this run is dropped; later exec/wait fail `aborted`.
  pub fn abort(&self) {
    self.aborted.store(true, Ordering::Release);
    let queued: Vec<u32> = self
      .legs
      .lock()
      .iter()
      .filter(|(_, state)| matches!(state, LegState::Queued(_)))
      .map(|(leg, _)| *leg)
      .collect();
    for leg in queued {
      self.abort_leg(leg);
    }
    let cells: Vec<u64> = self.cells.lock().iter().copied().collect();
    for cell in cells {
      // Its token is void now, though the sandbox drops the VM a moment later.
      if let Some(token) = LIVE.get(&cell).and_then(|live| live.token.clone()) {
        TOKENS.remove(&token);
      }
      abort_cell(cell);
    }
  }

  /// Tool Search drops a cell that stopped in `waiting` (it never suspends): false when no such
  /// cell of this run's scope is parked.
  pub fn drop_parked(&self, token: &str) -> bool {
    match TOKENS.get(token).map(|p| p.clone()) {
      Some(parked) if parked.scope == self.scope => {
        abort_cell(parked.cell);
        true
      }
      _ => false,
    }
  }

  /// Tool Search's structured `tool_search`, in the run's sandbox process: `respond` gets the
  /// hits as JSON text, or the message of a refusal.
  pub fn search(
    self: &Arc<Self>,
    query: String,
    limit: Option<f64>,
    respond: impl FnOnce(Result<String, String>) + Send + 'static,
  ) {
    if let Err(message) = self.search_limit(limit) {
      return respond(Err(message.to_string()));
    }
    let process = match self.process() {
      Ok(process) => process,
      Err(failure) => return respond(Err(failure.message)),
    };
    self.define_in(&process);
    let request = sandbox::next_request();
    let run = self.clone();
    process.request(
      request,
      &Command::Search {
        request,
        run: self.id,
        query,
        limit,
      },
      Box::new(move |answer| {
        respond(match answer {
          Answer::Text(hits) => {
            Counters::bump(&run.telemetry.searches);
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
      catalog: self.catalog_handle.id,
      guest: self.guest,
      limits: self.limits.clone(),
      namespaces,
    })));
    self.told.lock().push(Arc::downgrade(process));
  }

  /// Notes cell `cell` as alive in `process`, driven by this run.
  fn track(self: &Arc<Self>, cell: u64, process: &Arc<Process>, token: Option<String>) {
    process.cells.lock().insert(cell);
    self.cells.lock().insert(cell);
    LIVE.insert(
      cell,
      LiveCell {
        process: process.clone(),
        run: self.clone(),
        token,
      },
    );
    // The process may have died before it was noted: its cells were already failed.
    if process.phase() == sandbox::process::Phase::Dead {
      self.lose_cell(cell, &process.lost());
    }
  }

  fn event(&self, event: CodeModeCellEvent) {
    self.port.send(Message::Event {
      payload: event_json(&event),
    });
  }

  /// Adds what the sandbox counted.
  fn add(&self, counts: Counts) {
    let add = |counter: &AtomicU64, n: u32| {
      if n > 0 {
        counter.fetch_add(n.into(), Ordering::Relaxed);
      }
    };
    add(&self.telemetry.searches, counts.searches);
    add(&self.telemetry.describes, counts.describes);
    add(&self.telemetry.calls, counts.calls);
    add(
      &self.telemetry.typescript_transforms,
      counts.typescript_transforms,
    );
  }

  /// The leg running cell `cell`, if any.
  fn leg_of(&self, cell: u64) -> Option<u32> {
    self
      .legs
      .lock()
      .iter()
      .find(|(_, state)| **state == LegState::Sent(cell))
      .map(|(leg, _)| *leg)
  }

  /// A cell lost with its process: its leg fails, its token is remembered as lost, its nested
  /// calls are aborted.
  fn lose_cell(&self, cell: u64, message: &str) {
    let Some((_, live)) = LIVE.remove(&cell) else {
      return;
    };
    live.process.cells.lock().remove(&cell);
    self.cells.lock().remove(&cell);
    if let Some(token) = &live.token {
      TOKENS.remove(token);
      remember_lost(token, sandbox::unavailable(message));
    }
    self.port.send(Message::AbortCell { cell });
    if let Some(leg) = self.leg_of(cell) {
      self.legs.lock().remove(&leg);
      admission::release();
      let result = self.failed(sandbox::unavailable(message));
      self.port.send(Message::LegDone { leg, result });
    }
  }

  /// Counters, events and the leg's result, in that order (a leg's events come first).
  fn ended(&self, process: &Arc<Process>, ended: Ended) {
    let Ended {
      cell,
      leg,
      end,
      dropped,
      token,
      output,
    } = ended;
    let caller = leg.as_ref().and_then(|leg| leg.caller_id.as_deref());
    let previous = LIVE.get(&cell).and_then(|live| live.token.clone());
    let result = match &end {
      Some(LegEnd::Waiting {
        token: parked,
        reason,
        pending,
        snapshot_bytes,
      }) => match self.park(process, cell, parked, previous.as_deref()) {
        Ok(()) => {
          Counters::bump(&self.telemetry.suspended);
          self.telemetry.record_snapshot(*snapshot_bytes as usize);
          self.event(CodeModeCellEvent::CellSuspended {
            run_id: self.scope.run_id.clone(),
            cell_run_id: Some(parked.clone()),
            tool_call_id: caller.map(str::to_owned),
            reason: reason.to_string(),
            pending_tool_calls: pending.len() as u32,
            snapshot_bytes: *snapshot_bytes as f64,
          });
          let status = Status::Waiting {
            run_id: parked,
            reason,
            pending,
          };
          result::to_json(status, output, self.result_telemetry())
        }
        Err(failure) => result::to_json(Status::Failed(&failure), output, self.result_telemetry()),
      },
      end => {
        self.forget_cell(cell, process, [previous.as_deref(), token.as_deref()]);
        // A cell dropped between legs while a wait for it was already on its way (the abort
        // and the resume crossed): that wait's leg ends with the cell, unsettled by nothing
        // else (the sandbox's answer to the resume is about a cell that is no longer there).
        if leg.is_none()
          && let Some(waiting) = self.leg_of(cell)
        {
          self.legs.lock().remove(&waiting);
          admission::release();
          let result = self.failed(Failure::invalid(messages::RUN_UNAVAILABLE));
          self.port.send(Message::LegDone {
            leg: waiting,
            result,
          });
        }
        let aborted = matches!(end, Some(LegEnd::Failed(f)) if f.code == ErrorCode::Aborted)
          || dropped == Some(DropReason::Aborted);
        if aborted {
          Counters::bump(&self.telemetry.aborted);
        }
        match dropped {
          Some(DropReason::SnapshotLimit) => {
            // Parked past its cap: dropped now, and its next `wait` says why.
            if let (Some(token), Some(LegEnd::Failed(failure))) = (&token, end) {
              remember_lost(token, failure.clone());
              self.event(CodeModeCellEvent::CellDropped {
                run_id: self.scope.run_id.clone(),
                cell_run_id: Some(token.clone()),
                tool_call_id: None,
                code: failure.code.into(),
                error: failure.message.clone(),
              });
            }
          }
          Some(reason) => {
            if reason == DropReason::Expired {
              Counters::bump(&self.telemetry.expired);
            }
            let (run_id, cell_run_id, tool_call_id) =
              (self.scope.run_id.clone(), token.clone(), None);
            self.event(match reason {
              DropReason::Expired => CodeModeCellEvent::CellExpired {
                run_id,
                cell_run_id,
                tool_call_id,
              },
              _ => CodeModeCellEvent::CellAborted {
                run_id,
                cell_run_id,
                tool_call_id,
              },
            });
          }
          None if aborted => {
            self.event(CodeModeCellEvent::CellAborted {
              run_id: self.scope.run_id.clone(),
              cell_run_id: token.clone(),
              tool_call_id: caller.map(str::to_owned),
            });
          }
          None => {}
        }
        let telemetry = self.result_telemetry();
        match end {
          Some(LegEnd::Completed { value }) if leg.is_some() => {
            result::to_json(Status::Completed { value }, output, telemetry)
          }
          Some(LegEnd::Failed(failure)) if leg.is_some() => {
            result::to_json(Status::Failed(failure), output, telemetry)
          }
          _ => String::new(),
        }
      }
    };
    if let Some(leg) = leg {
      let state = self.legs.lock().remove(&leg.id);
      if state.is_some() {
        admission::release();
        self.port.send(Message::LegDone {
          leg: leg.id,
          result,
        });
      }
    }
  }

  /// A cell parks under `token` (after `previous`, if it was resumed from one); refused when
  /// the gateway holds `maxSuspendedCells` parked cells.
  fn park(
    &self,
    process: &Arc<Process>,
    cell: u64,
    token: &str,
    previous: Option<&str>,
  ) -> Result<(), Failure> {
    if previous.is_none() && TOKENS.len() + crate::executor::parked_cells() >= sandbox::max_parked()
    {
      process.send(&Command::Abort { cell });
      self.forget_cell(cell, process, [None, None]);
      return Err(Failure::invalid(messages::TOO_MANY_SUSPENDED).in_phase(FailurePhase::Host));
    }
    // The sandbox makes tokens (128 random bits): one it reports twice is not its own
    // randomness, and a process that would take over another cell's token is not trusted again.
    if TOKENS.contains_key(token) {
      process.kill("it reported a token that is already in use");
      self.forget_cell(cell, process, [None, None]);
      return Err(
        Failure::internal("the code mode sandbox reported a token already in use.")
          .in_phase(FailurePhase::Host),
      );
    }
    if let Some(previous) = previous {
      TOKENS.remove(previous);
    }
    TOKENS.insert(
      token.to_string(),
      Parked {
        cell,
        scope: self.scope.clone(),
        resuming: false,
      },
    );
    if let Some(mut live) = LIVE.get_mut(&cell) {
      live.token = Some(token.to_string());
    }
    Ok(())
  }

  /// A cell ended: it is no longer live, parked or this run's.
  fn forget_cell(&self, cell: u64, process: &Arc<Process>, tokens: [Option<&str>; 2]) {
    LIVE.remove(&cell);
    process.cells.lock().remove(&cell);
    self.cells.lock().remove(&cell);
    for token in tokens.into_iter().flatten() {
      TOKENS.remove(token);
    }
  }
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

/// The failure of a `wait` on a token whose cell ended while parked.
fn lost_token(token: &str) -> Option<Failure> {
  let lost = LOST.lock();
  let (_, failure) = lost.iter().rev().find(|(lost, _)| lost == token)?;
  Some(failure.clone())
}

fn remember_lost(token: &str, failure: Failure) {
  let mut lost = LOST.lock();
  if lost.len() >= MAX_LOST {
    lost.pop_front();
  }
  lost.push_back((token.to_string(), failure));
}

/// Ends a cell wherever it is (its leg fails `aborted`, a parked cell is dropped).
fn abort_cell(cell: u64) {
  if let Some(process) = LIVE.get(&cell).map(|live| live.process.clone()) {
    process.send(&Command::Abort { cell });
  }
}

/// The run a report about `cell` concerns: the one driving it, else the one the report names.
/// The run of `cell`, if `process` holds that cell for run `run`. A sandbox process is where
/// hostile code runs: a report counts only for cells the addon itself placed in that process,
/// for the run driving them now, so a process taken over by a cell can act for no other
/// cell's run, session or token.
fn owned(process: &Arc<Process>, run: u64, cell: u64) -> Option<Arc<Run>> {
  let live = LIVE.get(&cell)?;
  (Arc::ptr_eq(&live.process, process) && live.run.id == run).then(|| live.run.clone())
}

/// The process that holds `cell` now (tests: forging reports from it).
#[cfg(test)]
pub fn live_process(cell: u64) -> Option<Arc<Process>> {
  LIVE.get(&cell).map(|live| live.process.clone())
}

/// Nested calls a cell started (a sandbox report).
pub fn on_calls(process: &Arc<Process>, run: u64, cell: u64, batch: String) {
  if let Some(run) = owned(process, run, cell) {
    run.port.send(Message::Calls {
      cell,
      payload: batch,
    });
  }
}

/// A cell ended with calls in flight (a sandbox report).
pub fn on_cancel(process: &Arc<Process>, run: u64, cell: u64) {
  if let Some(run) = owned(process, run, cell) {
    run.port.send(Message::AbortCell { cell });
  }
}

/// A leg ended or a parked cell was dropped (a sandbox report).
pub fn on_ended(process: &Arc<Process>, run: u64, ended: Ended, counts: Counts) {
  if let Some(run) = owned(process, run, ended.cell) {
    run.add(counts);
    run.ended(process, ended);
  }
}

/// A process died: every cell in it is lost.
pub fn process_died(process: &Arc<Process>) {
  let cells: Vec<u64> = process.cells.lock().iter().copied().collect();
  let message = process.lost();
  for cell in cells {
    if let Some(run) = LIVE.get(&cell).map(|live| live.run.clone()) {
      run.lose_cell(cell, &message);
    }
  }
}

/// Keys read from an exec input.
pub const EXEC_KEYS: &[&str] = &["code", "command", "language"];
/// Keys read from a wait input.
pub const WAIT_KEYS: &[&str] = &["runId", "run_id"];

fn string_field(input: &Field, key: &str) -> Result<Option<String>, Failure> {
  match input.get(key) {
    Field::Missing | Field::Null => Ok(None),
    Field::String(s) => Ok(Some(s.clone())),
    other => Err(Failure::invalid(format!(
      "{key} must be a string, not {}.",
      other.type_name()
    ))),
  }
}

/// `{code | command, language?}` → the source and whether it is TypeScript.
pub fn validate_exec(input: &Field, config: &CodeModeConfig) -> Result<(String, bool), Failure> {
  if !matches!(input, Field::Object(_)) {
    return Err(Failure::invalid(format!(
      "exec input must be an object like {{ code: string, language?: \"javascript\" | \"typescript\" }}, not {}.",
      input.type_name()
    )));
  }
  let code = string_field(input, "code")?.filter(|c| !c.trim().is_empty());
  let command = string_field(input, "command")?.filter(|c| !c.trim().is_empty());
  let code = match (code, command) {
    (Some(code), Some(command)) if code != command => {
      return Err(Failure::invalid(
        "code and command must match when both are given.",
      ));
    }
    (Some(code), _) | (None, Some(code)) => code,
    (None, None) => return Err(Failure::invalid("exec requires a non-empty code string.")),
  };
  if code.len() > MAX_CODE_BYTES {
    return Err(Failure::invalid(format!(
      "code is {} bytes; code mode accepts at most {MAX_CODE_BYTES}.",
      code.len()
    )));
  }
  let typescript = match input.get("language") {
    Field::Missing | Field::Null => false,
    Field::String(s) if s == "javascript" => false,
    Field::String(s) if s == "typescript" => true,
    _ => {
      return Err(Failure::invalid(
        "language must be \"javascript\" or \"typescript\".",
      ));
    }
  };
  let language = if typescript {
    "typescript"
  } else {
    "javascript"
  };
  if !config.allows(language) {
    return Err(Failure::invalid(if typescript {
      messages::TYPESCRIPT_DISABLED
    } else {
      messages::JAVASCRIPT_DISABLED
    }));
  }
  Ok((code, typescript))
}

/// `{runId}` (or `{run_id}`) → the token.
pub fn validate_wait(input: &Field) -> Result<String, Failure> {
  if !matches!(input, Field::Object(_)) {
    return Err(Failure::invalid(format!(
      "wait input must be an object like {{ runId: string }}, not {}.",
      input.type_name()
    )));
  }
  let run_id = string_field(input, "runId")?.filter(|s| !s.is_empty());
  let alias = string_field(input, "run_id")?.filter(|s| !s.is_empty());
  match (run_id, alias) {
    (Some(a), Some(b)) if a != b => Err(Failure::invalid(
      "runId and run_id must match when both are given.",
    )),
    (Some(token), _) | (None, Some(token)) => Ok(token),
    (None, None) => Err(Failure::invalid("wait requires a runId string.")),
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::{Value, json};

  fn exec_input(v: Value) -> Field {
    Field::from_json(&v, EXEC_KEYS)
  }

  #[test]
  fn exec_validation() {
    let config = config::resolve(&Field::Bool(true));
    let ok = validate_exec(&exec_input(json!({ "code": "1" })), &config).unwrap();
    assert_eq!(ok, ("1".to_string(), false));
    let alias = validate_exec(
      &exec_input(json!({ "command": "2", "language": "typescript" })),
      &config,
    )
    .unwrap();
    assert_eq!(alias, ("2".to_string(), true));
    for (input, message) in [
      (json!("1+1"), "exec input must be an object"),
      (json!({}), "exec requires a non-empty code string."),
      (
        json!({ "code": "  " }),
        "exec requires a non-empty code string.",
      ),
      (json!({ "code": 5 }), "code must be a string, not number."),
      (
        json!({ "code": "a", "command": "b" }),
        "code and command must match",
      ),
      (
        json!({ "code": "a", "language": "python" }),
        "language must be",
      ),
    ] {
      let err = validate_exec(&exec_input(input.clone()), &config).unwrap_err();
      assert!(err.message.starts_with(message), "{input}: {}", err.message);
      assert_eq!(err.code, ErrorCode::InvalidInput);
    }
    let js_only = config::resolve(&Field::from_json(
      &json!({ "enabled": true, "languages": ["javascript"] }),
      config::CONFIG_KEYS,
    ));
    let err = validate_exec(
      &exec_input(json!({ "code": "1", "language": "typescript" })),
      &js_only,
    )
    .unwrap_err();
    assert_eq!(err.message, messages::TYPESCRIPT_DISABLED);
  }

  #[test]
  fn wait_validation() {
    let input = |v: Value| Field::from_json(&v, WAIT_KEYS);
    assert_eq!(
      validate_wait(&input(json!({ "runId": "cm_1" }))).unwrap(),
      "cm_1"
    );
    assert_eq!(
      validate_wait(&input(json!({ "run_id": "cm_2" }))).unwrap(),
      "cm_2"
    );
    assert!(validate_wait(&input(json!({ "runId": "a", "run_id": "b" }))).is_err());
    assert!(validate_wait(&input(json!({}))).is_err());
    assert!(validate_wait(&input(json!(null))).is_err());
  }
}
