//! One `CodeModeRun`: its scope, config, catalog, model surface, counters and live cells, and
//! the exec/wait entry points with their input validation (ARCHITECTURE.md, decision 2).

use crate::catalog::Catalog;
use crate::catalog::Source;
use crate::config::{self, CodeModeConfig};
use crate::engine::{self, Cell, Delivery, DropReason, Ended, Guest, Host, LegEnd, LegTag, Limits};
use crate::error::{ErrorCode, Failure, messages};
use crate::frontend::{self, Language};
use crate::input::Field;
use crate::mcp::McpSurface;
use crate::namespaces::{self, Hidden, Installed, Registration};
use crate::port::Port;
use crate::protocol::calls::{self, NestedCall};
use crate::protocol::types::{
  CodeModeHiddenNamespace, CodeModeInactiveReason, CodeModeRunTelemetry, ModelToolDefinition,
};
use crate::protocol::{
  Message, cell_event,
  result::{self, Status},
};
use crate::surface::{self, SurfaceOptions};
use crate::telemetry::{Counters, RunState};
use parking_lot::Mutex;
use serde_json::{Value, json};
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

/// Largest cell source accepted.
pub const MAX_CODE_BYTES: usize = 1 << 20;

// Cells are prepared on the engine's workers: their stacks must hold a preparation.
const _: () = assert!(frontend::PREPARE_STACK <= engine::WORKER_STACK);

/// Who a run belongs to: a `runId` token resumes only from the same scope (ARCHITECTURE.md, decision 7).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scope {
  pub run_id: String,
  pub session_id: Option<String>,
  pub session_key: Option<String>,
  pub agent_id: Option<String>,
}

/// What `CodeModeRun.create` passes down.
pub struct RunOptions {
  pub config: Field,
  pub scope: Scope,
  /// The run's catalog, built from the gateway's tools (shared between runs with the same
  /// content, see `lib/catalog-cache.js`).
  pub catalog: Arc<Catalog>,
  pub disable_tools: bool,
  pub raw_model_call: bool,
  /// The kind of VM its cells run in (`bridge::CODE_MODE`: code mode's prelude and functions).
  pub guest: &'static Guest,
}

pub struct Run {
  pub scope: Scope,
  pub config: CodeModeConfig,
  /// The engine's view of `config`.
  limits: Limits,
  guest: &'static Guest,
  pub active: bool,
  /// Why `active` is false (`None` when it is true).
  pub inactive_reason: Option<CodeModeInactiveReason>,
  pub catalog: Arc<Catalog>,
  model_tools: OnceLock<Vec<ModelToolDefinition>>,
  mcp: OnceLock<McpSurface>,
  /// Namespaces visible to this run (set once, by `install_namespaces`).
  namespaces: OnceLock<(Vec<Installed>, Vec<Hidden>)>,
  pub port: Arc<dyn Port>,
  pub telemetry: Counters,
  /// Cells this run created or resumed, for `abort()`.
  cells: Mutex<HashMap<u64, Weak<Cell>>>,
  legs: Mutex<HashMap<u32, u64>>,
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

impl Run {
  /// The run behind a host the engine hands back (every cell of code mode's is driven by one).
  pub fn of(host: Arc<dyn Host>) -> Arc<Run> {
    host
      .into_any()
      .downcast::<Run>()
      .unwrap_or_else(|_| unreachable!("code mode's cells are driven by runs"))
  }

  pub fn new(options: RunOptions, port: Arc<dyn Port>) -> Arc<Run> {
    let config = config::resolve(&options.config);
    let catalog = options.catalog;
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
    let active = inactive_reason.is_none();
    let limits = Limits {
      timeout: Duration::from_millis(config.timeout_ms as u64),
      memory_limit_bytes: config.memory_limit_bytes as usize,
      max_output_bytes: config.max_output_bytes as usize,
      max_snapshot_bytes: config.max_snapshot_bytes as usize,
      snapshot_ttl: Duration::from_secs(config.snapshot_ttl_seconds as u64),
    };
    Arc::new(Run {
      scope: options.scope,
      limits,
      guest: options.guest,
      config,
      active,
      inactive_reason,
      catalog,
      model_tools: OnceLock::new(),
      mcp: OnceLock::new(),
      namespaces: OnceLock::new(),
      port,
      telemetry: Counters::default(),
      cells: Mutex::new(HashMap::new()),
      legs: Mutex::new(HashMap::new()),
      aborted: AtomicBool::new(false),
    })
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

  /// The run's MCP namespace and API files (built on first use).
  pub fn mcp(&self) -> &McpSurface {
    self.mcp.get_or_init(|| McpSurface::build(&self.catalog))
  }

  /// Registered namespaces this run's catalog makes visible (before their scopes are built).
  pub fn namespace_candidates(&self) -> Vec<Registration> {
    if self.active {
      namespaces::visible(&self.catalog)
    } else {
      Vec::new()
    }
  }

  /// `namespace_candidates` as JSON `[{ id, pluginId, globalName }]` for the JS layer.
  pub fn namespace_candidates_json(&self) -> String {
    let candidates: Vec<Value> = self
      .namespace_candidates()
      .into_iter()
      .map(
        |r| serde_json::json!({ "id": r.id, "pluginId": r.plugin_id, "globalName": r.global_name }),
      )
      .collect();
    Value::Array(candidates).to_string()
  }

  /// `install_namespaces` from and to JSON: descriptors in, `[{ id, reason }]` hidden out.
  pub fn install_namespaces_json(&self, descriptors: &str) -> String {
    let descriptors = serde_json::from_str(descriptors).unwrap_or(Value::Null);
    let hidden: Vec<Value> = self
      .install_namespaces(&descriptors)
      .into_iter()
      .map(|h| serde_json::json!({ "id": h.id, "reason": h.reason }))
      .collect();
    Value::Array(hidden).to_string()
  }

  /// Takes the scopes the JS layer built (once) and returns the namespaces hidden for this run,
  /// which the JS layer reports as `namespace_hidden` events.
  pub fn install_namespaces(&self, descriptors: &Value) -> Vec<Hidden> {
    let candidates = self.namespace_candidates();
    let mut result = namespaces::install(&self.catalog, &candidates, descriptors);
    if self.active {
      result.1.extend(namespaces::not_visible(&self.catalog));
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

  pub fn result_telemetry(&self) -> String {
    self.telemetry.result_json(&self.catalog)
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
      suspended_cells_in_process: engine::parked_cells(),
    };
    self.telemetry.run(&self.catalog, state)
  }

  fn failed(&self, failure: Failure) -> String {
    result::to_json(Status::Failed(&failure), &[], &self.result_telemetry())
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
      Ok((code, language)) => {
        let run = self.clone();
        let prepare: engine::Prepare = Box::new(move |deadline| {
          if language == Language::TypeScript {
            Counters::bump(&run.telemetry.typescript_transforms);
          }
          let program = frontend::prepare_until(&code, language, deadline)?;
          let positions = program.positions;
          Ok(engine::Program {
            code: program.code,
            filename: program.language.filename(),
            positions: Box::new(move |line, column| positions.user_position(line, column)),
          })
        });
        let tag = LegTag {
          id: leg.id,
          caller_id: leg.tool_call_id,
        };
        Cell::exec(self.clone(), self.guest, tag, prepare, |cell| {
          self.track_cell(cell, leg.id)
        });
        None
      }
    }
  }

  /// Starts a wait leg on a suspended cell (same contract as `exec`).
  pub fn wait(self: &Arc<Self>, input: &Field, leg: LegStart) -> Option<String> {
    Counters::bump(&self.telemetry.waits);
    if leg.aborted {
      // An already-aborted signal drops the cell it names, as an abort during the leg would.
      if let Ok(token) = validate_wait(input)
        && let Some(cell) = Cell::parked(&token)
        && Run::of(cell.host()).scope == self.scope
      {
        cell.abort();
      }
    }
    let resumed = self
      .usable(&leg)
      .and_then(|_| validate_wait(input))
      .and_then(|token| {
        let cell =
          Cell::parked(&token).ok_or_else(|| Failure::invalid(messages::RUN_UNAVAILABLE))?;
        if Run::of(cell.host()).scope != self.scope {
          return Err(Failure::invalid(messages::WRONG_SESSION));
        }
        let tag = LegTag {
          id: leg.id,
          caller_id: leg.tool_call_id.clone(),
        };
        cell.resume(self.clone(), tag, |cell| {
          self.track_cell(cell, leg.id);
          // Before the leg can end: a leg's events come before its result.
          Counters::bump(&self.telemetry.resumed);
          self.event(cell_event(
            "cell_resumed",
            &self.scope.run_id,
            Some(&token),
            leg.tool_call_id.as_deref(),
            json!({}),
          ));
        })
      });
    resumed.err().map(|failure| self.failed(failure))
  }

  /// A nested call settled in the JS layer.
  #[cfg(test)]
  pub fn settle(&self, cell: u64, call: u32, ok: bool, payload: Option<String>) {
    self.settle_many(cell, std::iter::once((call, ok, payload)));
  }

  /// Nested calls of one cell settled in the JS layer: delivered together, so a cell waiting
  /// on many of them runs once for all that arrived at the same time.
  pub fn settle_many(
    &self,
    cell: u64,
    settled: impl IntoIterator<Item = (u32, bool, Option<String>)>,
  ) {
    let cap = (self.config.memory_limit_bytes / 4) as usize;
    let deliveries = settled.into_iter().map(|(call, ok, payload)| match payload {
      Some(p) if p.len() > cap => Delivery {
        call,
        ok: false,
        payload: Some(format!(
          "tool result is {} bytes, over the bridge payload cap of {cap} bytes (memoryLimitBytes / 4).",
          p.len()
        )),
      },
      payload => Delivery { call, ok, payload },
    });
    engine::deliver(cell, deliveries);
  }

  /// The exec/wait signal for `leg` fired.
  pub fn abort_leg(&self, leg: u32) {
    let cell = self
      .legs
      .lock()
      .get(&leg)
      .and_then(|id| self.cells.lock().get(id).and_then(Weak::upgrade));
    if let Some(cell) = cell {
      cell.abort();
    }
  }

  /// `run.abort()`: every cell of this run is dropped; later exec/wait fail `aborted`.
  pub fn abort(&self) {
    self.aborted.store(true, Ordering::Release);
    let cells: Vec<Arc<Cell>> = self
      .cells
      .lock()
      .values()
      .filter_map(Weak::upgrade)
      .collect();
    for cell in cells {
      cell.abort();
    }
  }

  fn track_cell(&self, cell: &Arc<Cell>, leg: u32) {
    self.cells.lock().insert(cell.id, Arc::downgrade(cell));
    self.track_leg(leg, cell.id);
  }

  fn track_leg(&self, leg: u32, cell: u64) {
    self.legs.lock().insert(leg, cell);
  }

  fn event(&self, event: Value) {
    self.port.send(Message::Event {
      payload: event.to_string(),
    });
  }

  /// Appends one nested call to `out`, the cell's batch being built (see
  /// `src/protocol/calls.rs`), and counts it.
  pub(crate) fn write_call(&self, call: NestedCall, out: &mut Vec<u8>) -> Result<(), &'static str> {
    calls::write_call(call, out)?;
    Counters::bump(&self.telemetry.calls);
    Ok(())
  }

  /// Sends a batch of nested calls written by [`Run::write_call`] to the executor, through
  /// the JS layer: one message for every call a cell started since its previous batch.
  fn send_calls(&self, cell: u64, batch: Vec<u8>) {
    if batch.is_empty() {
      return;
    }
    let payload = calls::finish_batch(batch);
    self.port.send(Message::Calls { cell, payload });
  }

  /// Sends one nested call of cell `cell` at once (a batch of one).
  #[cfg(test)]
  pub(crate) fn start_call(&self, cell: u64, call: NestedCall) -> Result<(), &'static str> {
    let mut batch = Vec::new();
    self.write_call(call, &mut batch)?;
    self.send_calls(cell, batch);
    Ok(())
  }
}

impl Host for Run {
  fn limits(&self) -> &Limits {
    &self.limits
  }

  fn label(&self) -> &str {
    &self.scope.run_id
  }

  fn send_requests(&self, cell: u64, batch: Vec<u8>) {
    self.send_calls(cell, batch);
  }

  fn cancel_requests(&self, cell: u64) {
    self.port.send(Message::AbortCell { cell });
  }

  /// Counters, events and the leg's result, in that order (a leg's events come first).
  fn ended(&self, ended: Ended) {
    let Ended {
      cell,
      leg,
      end,
      dropped,
      token,
      output,
    } = ended;
    let caller = leg.as_ref().and_then(|leg| leg.caller_id.as_deref());
    let result = match &end {
      Some(LegEnd::Waiting {
        token,
        reason,
        pending,
        snapshot_bytes,
      }) => {
        Counters::bump(&self.telemetry.suspended);
        self.telemetry.record_snapshot(*snapshot_bytes);
        self.event(cell_event(
          "cell_suspended",
          &self.scope.run_id,
          Some(token),
          caller,
          json!({ "reason": reason, "pendingToolCalls": pending.len(), "snapshotBytes": snapshot_bytes }),
        ));
        let status = Status::Waiting {
          run_id: token,
          reason,
          pending,
        };
        result::to_json(status, &output, &self.result_telemetry())
      }
      end => {
        self.cells.lock().remove(&cell);
        let aborted = matches!(end, Some(LegEnd::Failed(f)) if f.code == ErrorCode::Aborted)
          || dropped == Some(DropReason::Aborted);
        if aborted {
          Counters::bump(&self.telemetry.aborted);
        }
        match dropped {
          Some(reason) => {
            if reason == DropReason::Expired {
              Counters::bump(&self.telemetry.expired);
            }
            let kind = match reason {
              DropReason::Expired => "cell_expired",
              DropReason::Aborted => "cell_aborted",
            };
            let event = cell_event(kind, &self.scope.run_id, token.as_deref(), None, json!({}));
            self.event(event);
          }
          None if aborted => {
            let event = cell_event(
              "cell_aborted",
              &self.scope.run_id,
              token.as_deref(),
              caller,
              json!({}),
            );
            self.event(event);
          }
          None => {}
        }
        let telemetry = self.result_telemetry();
        match end {
          Some(LegEnd::Completed { value }) => {
            result::to_json(Status::Completed { value }, &output, &telemetry)
          }
          Some(LegEnd::Failed(failure)) => {
            result::to_json(Status::Failed(failure), &output, &telemetry)
          }
          _ => String::new(),
        }
      }
    };
    if let Some(leg) = leg {
      self.legs.lock().remove(&leg.id);
      self.port.send(Message::LegDone {
        leg: leg.id,
        result,
      });
    }
  }

  fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
    self
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

/// `{code | command, language?}` → the source and its language.
pub fn validate_exec(
  input: &Field,
  config: &CodeModeConfig,
) -> Result<(String, Language), Failure> {
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
  let language = match input.get("language") {
    Field::Missing | Field::Null => Language::JavaScript,
    Field::String(s) if s == "javascript" => Language::JavaScript,
    Field::String(s) if s == "typescript" => Language::TypeScript,
    _ => {
      return Err(Failure::invalid(
        "language must be \"javascript\" or \"typescript\".",
      ));
    }
  };
  if !config.allows(language.as_str()) {
    return Err(Failure::invalid(match language {
      Language::TypeScript => messages::TYPESCRIPT_DISABLED,
      Language::JavaScript => messages::JAVASCRIPT_DISABLED,
    }));
  }
  Ok((code, language))
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
  use serde_json::json;

  fn exec_input(v: Value) -> Field {
    Field::from_json(&v, EXEC_KEYS)
  }

  #[test]
  fn exec_validation() {
    let config = config::resolve(&Field::Bool(true));
    let ok = validate_exec(&exec_input(json!({ "code": "1" })), &config).unwrap();
    assert_eq!(ok, ("1".to_string(), Language::JavaScript));
    let alias = validate_exec(
      &exec_input(json!({ "command": "2", "language": "typescript" })),
      &config,
    )
    .unwrap();
    assert_eq!(alias, ("2".to_string(), Language::TypeScript));
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
