//! Native runtime for OpenClaw code mode: the napi exports. Each is a thin wrapper; the work
//! lives in the module named for it.

mod admission;
mod config;
mod executor;
mod input;
mod namespaces;
mod port;
mod promise;
mod protocol;
mod run;
mod sandbox;
mod surface;
mod telemetry;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing_exports;
mod toolsearch;

#[cfg(test)]
mod tests;

// The layers below the binding, under the names the modules here use for them.
use code_mode_catalog as catalog;
use code_mode_protocol::error;

use code_mode_protocol::wire::GuestKind;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

pub use config::CodeModeConfig;
/// OpenClaw's `quickjs` code-mode executor (the plugin's native half; `lib/openclaw-executor.js`).
pub use executor::{NativeExecutorCell, compile_executor_controller};
use protocol::types::{
  CodeModeHiddenNamespace, CodeModeInactiveReason, CodeModeRunTelemetry, ModelToolDefinition,
  ToolCatalogEntry,
};
pub use toolsearch::resolve_tool_search_config;

/// The addon is loaded into a Node environment: its event loop reads the sandbox processes'
/// reports if no other environment's does (`src/sandbox/reading.rs`). Cannot fail: without it,
/// threads read them.
#[napi(module_exports, catch_unwind)]
pub fn loaded(_exports: Object, env: Env) -> Result<()> {
  // napi-rs does not wrap a module_exports hook in catch_unwind as it does other exports.
  let _ = std::panic::catch_unwind(|| sandbox::reading::adopt(&env));
  Ok(())
}

/// Normalises a `tools.codeMode` value: the `true`/`false` shorthand, the `enabled: true` gate,
/// defaults and clamps. Never throws; anything unusable becomes its default.
#[napi(catch_unwind)]
pub fn resolve_code_mode_config(env: Env, input: Option<Unknown>) -> CodeModeConfig {
  config::resolve(&read_optional(&env, input, config::CONFIG_KEYS))
}

/// Process-wide runtime settings. Every field is optional; call it before or between runs.
#[napi(object)]
pub struct RuntimeOptions {
  /// Suspended (waiting) cells the gateway keeps at once, across every host and sandbox
  /// process. Default 64.
  pub max_suspended_cells: Option<f64>,
  /// Legs in flight (a cell running, or idle awaiting tools) at once, across every host; later
  /// exec/wait calls queue, and fail `runtime_unavailable` after waiting their `timeoutMs`.
  /// Default 1024.
  pub max_active_cells: Option<f64>,
  /// Sandbox processes that run guest work, 1 to 64. Default: one per eight cores (1 to 8).
  /// Each holds the cells routed to it; a process whose worker got stuck in native code is
  /// replaced.
  pub sandbox_processes: Option<f64>,
  /// Threads that run guest JavaScript in each sandbox process, 1 to 256. Default: the
  /// machine's available parallelism divided among the processes, at least 4. A process
  /// already running takes a lower count at once, and a higher one only up to the count it
  /// started with (its memory backstop is sized for that); processes started later use it.
  pub worker_threads: Option<f64>,
}

/// The most `maxSuspendedCells` and `maxActiveCells` may be.
const MAX_CELLS: f64 = 1_000_000.0;

/// Each `RuntimeOptions` field as JavaScript names it, with its largest value (the least is 1):
/// the one place the ranges are written, for the checks and their messages.
const RUNTIME_OPTIONS: [(&str, f64); 4] = [
  ("maxSuspendedCells", MAX_CELLS),
  ("maxActiveCells", MAX_CELLS),
  ("sandboxProcesses", 64.0),
  ("workerThreads", 256.0),
];
const RUNTIME_OPTION_KEYS: &[&str] = &[
  RUNTIME_OPTIONS[0].0,
  RUNTIME_OPTIONS[1].0,
  RUNTIME_OPTIONS[2].0,
  RUNTIME_OPTIONS[3].0,
];

/// Why `configureCodeModeRuntime` refused its argument: the kind of JavaScript error to throw.
#[derive(Debug)]
enum Refusal {
  Type(String),
  Range(String),
}

/// `value` of the option `name` as a count from 1 to `max` (None when left out); anything else
/// is refused by name (napi's own conversion to an integer would wrap -1 to 4294967295, and its
/// type errors name Rust types).
fn count(
  name: &str,
  value: &input::Field,
  max: f64,
) -> std::result::Result<Option<usize>, Refusal> {
  let wanted = format!("configureCodeModeRuntime: {name} must be a whole number from 1 to {max}");
  match value {
    input::Field::Missing => Ok(None),
    input::Field::Threw(thrown) => Err(Refusal::Type(format!(
      "configureCodeModeRuntime: reading {name} threw: {thrown}"
    ))),
    input::Field::Number(n) if n.fract() == 0.0 && (1.0..=max).contains(n) => Ok(Some(*n as usize)),
    input::Field::Number(n) => {
      // As JavaScript writes the number.
      let shown = match *n {
        f64::INFINITY => "Infinity".to_string(),
        f64::NEG_INFINITY => "-Infinity".to_string(),
        n => n.to_string(),
      };
      Err(Refusal::Range(format!("{wanted}, not {shown}")))
    }
    other => Err(Refusal::Type(format!("{wanted}, not {}", a_type(other)))),
  }
}

/// `typeof`-style name of `value` with its article, for a message (`a string`, `null`).
fn a_type(value: &input::Field) -> String {
  match value.type_name() {
    "null" | "undefined" => value.type_name().to_string(),
    name @ ("object" | "array") => format!("an {name}"),
    name => format!("a {name}"),
  }
}

/// The counts `options` sets, in `RUNTIME_OPTIONS` order; checks every field before any is used.
fn runtime_counts(options: &input::Field) -> std::result::Result<[Option<usize>; 4], Refusal> {
  if !matches!(options, input::Field::Object(_)) {
    return Err(Refusal::Type(format!(
      "configureCodeModeRuntime: options must be an object such as {{ workerThreads: 4 }}, not {}",
      a_type(options)
    )));
  }
  let mut counts = [None; 4];
  for (slot, (name, max)) in counts.iter_mut().zip(RUNTIME_OPTIONS) {
    *slot = count(name, options.get(name), max)?;
  }
  Ok(counts)
}

/// Applies process-wide runtime settings (see `RuntimeOptions`); fields left out keep their
/// current value. Call it before or between runs. Throws, changing nothing: a TypeError when
/// `options` is not an object, a field is not a number or reading it throws (a getter, a Proxy
/// trap), a RangeError when a field is not a whole number in its range. Other keys are not read.
#[napi(catch_unwind, ts_args_type = "options: RuntimeOptions")]
pub fn configure_code_mode_runtime(env: Env, options: Unknown) -> Result<()> {
  // Read as untrusted input (own fields only, never throwing), not as a `RuntimeOptions`: napi's
  // conversion accepts a number or a function as options and throws a plain Error on a field.
  // Not an `Option`, which would read null as left out. A getter or Proxy trap that throws is
  // refused by name, not read as left out.
  let options = input::read_input(&env, &options, RUNTIME_OPTION_KEYS);
  let [max_parked, max_active, processes, threads] = match runtime_counts(&options) {
    Ok(counts) => counts,
    Err(refusal) => {
      let message = match &refusal {
        Refusal::Type(message) => {
          env.throw_type_error(message, None)?;
          message
        }
        Refusal::Range(message) => {
          env.throw_range_error(message, None)?;
          message
        }
      };
      // The exception is pending: napi-rs throws nothing more for this status.
      return Err(Error::new(Status::PendingException, message.clone()));
    }
  };
  if let Some(n) = max_active {
    admission::set_max(n);
  }
  sandbox::configure(processes, threads, max_parked);
  Ok(())
}

/// Internal: where the sandbox executable is (next to this addon); the JS layer sets it when it
/// loads the addon. `OPENCLAW_CODE_MODE_SANDBOX` in the environment overrides it.
#[napi(catch_unwind)]
pub fn set_sandbox_executable(path: String) {
  sandbox::set_executable(path.into());
}

/// Throws unless `toolNames` is exactly `exec` and `wait`: the last check before a code-mode
/// request goes to the provider.
#[napi(catch_unwind)]
pub fn assert_code_mode_payload(tool_names: Vec<String>) -> Result<()> {
  surface::check_payload(&tool_names).map_err(|message| Error::new(Status::InvalidArg, message))
}

/// What a plugin namespace declares, as the plugin loader passes it; `index.d.ts` adds its
/// JavaScript callback (`createScope`), which stays in `lib/namespaces.js`.
#[napi(object)]
pub struct NamespaceRegistration {
  /// Unique namespace id.
  pub id: String,
  /// The guest global (`Issues`); also `namespaces.<globalName>`. A JavaScript identifier, not reserved.
  pub global_name: String,
  /// Appended to the exec description when the namespace is visible.
  pub description: String,
  /// Optional usage hint appended after the description.
  pub prompt: Option<String>,
  /// Visibility gate and ownership check: each must be in the run with `sourceName === pluginId`.
  pub required_tool_names: Vec<String>,
}

/// The namespace registry of the calling JavaScript realm: napi instance data, one per realm,
/// so that a worker thread's registrations are its own, as its `createScope` callbacks are.
fn realm_registry(env: &Env) -> Result<&'static namespaces::Registry> {
  if env.get_instance_data::<namespaces::Registry>()?.is_none() {
    env.set_instance_data(namespaces::Registry::default(), (), |_| {})?;
  }
  env
    .get_instance_data::<namespaces::Registry>()?
    .map(|registry| &*registry)
    .ok_or_else(|| Error::from_reason("this realm has no namespace registry"))
}

/// Registers a plugin namespace; throws a TypeError naming the problem when it is invalid.
#[napi(catch_unwind)]
pub fn register_namespace(
  env: &Env,
  plugin_id: String,
  registration: NamespaceRegistration,
) -> Result<()> {
  namespaces::register(
    realm_registry(env)?,
    namespaces::Registration {
      plugin_id,
      id: registration.id,
      global_name: registration.global_name,
      description: registration.description,
      prompt: registration.prompt,
      required_tool_names: registration.required_tool_names,
    },
  )
  .map_err(|message| Error::new(Status::InvalidArg, message))
}

/// Removes one namespace; false when it was not registered.
#[napi(catch_unwind)]
pub fn unregister_namespace(env: &Env, namespace_id: String) -> Result<bool> {
  Ok(namespaces::unregister(realm_registry(env)?, &namespace_id))
}

/// Removes every namespace of a plugin; returns their ids.
#[napi(catch_unwind)]
pub fn clear_namespaces_for_plugin(env: &Env, plugin_id: String) -> Result<Vec<String>> {
  Ok(namespaces::clear_plugin(realm_registry(env)?, &plugin_id))
}

/// Removes every namespace (tests).
#[napi(catch_unwind)]
pub fn clear_namespaces(env: &Env) -> Result<()> {
  namespaces::clear_all(realm_registry(env)?);
  Ok(())
}

/// Internal, for `npm run bench`: median microseconds to prepare a cell (parse, checks,
/// completion value, and for TypeScript the transform) over `iterations` runs, in a sandbox
/// process.
#[napi(catch_unwind, ts_return_type = "Promise<number>")]
pub fn bench_prepare<'env>(
  env: &'env Env,
  code: String,
  typescript: bool,
  iterations: u32,
) -> Result<Object<'env>> {
  let (settle, promise) = promise::create::<f64>(env)?;
  match sandbox::process_for(0) {
    Err(failure) => settle.reject(failure.message),
    Ok(process) => {
      let request = sandbox::next_request();
      let command = code_mode_protocol::wire::Command::Prepare {
        request,
        code,
        typescript,
        iterations,
      };
      process.request(
        request,
        &command,
        Box::new(move |answer| match answer {
          code_mode_protocol::wire::Answer::Number(micros) => settle.resolve(micros),
          other => settle.reject(format!("{other:?}")),
        }),
      );
    }
  }
  Ok(promise)
}

/// Identity and tools of a run, as the JS layer passes them.
#[napi(object)]
pub struct NativeRunOptions {
  pub run_id: String,
  pub session_id: Option<String>,
  pub session_key: Option<String>,
  pub agent_id: Option<String>,
  pub disable_tools: Option<bool>,
  pub raw_model_call: Option<bool>,
  /// The kind of VM the run's cells use: `"tool_search"` for a `ToolSearchRun`'s, code mode's
  /// otherwise.
  pub guest: Option<String>,
}

/// A catalog tool as a nested call names it (`NativeRun.callTool`): what the JS layer puts in
/// the `NestedToolCall` it hands the executor.
#[napi(object, object_from_js = false)]
pub struct CallTool {
  /// Exact catalog id, `<source>:<owner>:<name>`.
  pub id: String,
  /// The tool's name as the gateway gave it.
  pub name: String,
  /// Where the tool comes from.
  #[napi(ts_type = "'openclaw' | 'mcp' | 'client'")]
  pub source: String,
  /// `core`, the plugin id, the MCP server or the client app.
  pub source_name: String,
  /// What an MCP entry calls on its server; absent for other tools.
  pub mcp: Option<CallToolMcp>,
}

/// What an MCP catalog entry calls (`NestedToolCall.mcp`).
#[napi(object, object_from_js = false)]
pub struct CallToolMcp {
  /// The MCP server.
  pub server_name: String,
  /// The tool (or resource/prompt operation) on that server.
  pub tool_name: String,
  /// What to call: a tool, or a resources or prompts operation.
  #[napi(
    ts_type = "'tool' | 'resources_list' | 'resources_read' | 'prompts_list' | 'prompts_get'"
  )]
  pub operation: String,
}

/// A built tool catalog, shared by every run over the same tools: the JS layer keeps them by
/// content (`lib/catalog-cache.js`).
#[napi(custom_finalize)]
pub struct NativeCatalog {
  handle: Arc<run::CatalogHandle>,
  /// What it holds, as told to V8 (so that dropping the last handle to a large catalog makes a
  /// garbage collection come soon enough to free it).
  weight: i64,
}

#[napi]
impl NativeCatalog {
  /// Starts building the catalog of the gateway's `CatalogTool[]` as JSON text; a large one is
  /// built on a thread of its own while the caller goes on. Unparseable text is an empty
  /// catalog.
  #[napi(constructor, catch_unwind)]
  pub fn new(env: Env, tools_json: String) -> Self {
    let weight = catalog::building::weight(&tools_json) as i64;
    // Only a hint to the collector: a refusal changes nothing else.
    let _ = env.adjust_external_memory(weight);
    NativeCatalog {
      handle: Arc::new(run::CatalogHandle::new(tools_json)),
      weight,
    }
  }
}

impl ObjectFinalize for NativeCatalog {
  fn finalize(self, env: Env) -> napi::Result<()> {
    let _ = env.adjust_external_memory(-self.weight);
    Ok(())
  }
}

/// The native half of a `CodeModeRun` (the public class lives in `lib/run.js`).
#[napi]
pub struct NativeRun {
  run: Arc<run::Run>,
}

#[napi]
impl NativeRun {
  /// `port(kind, id, payload)` receives every message of the run (see `src/protocol`).
  #[napi(constructor, catch_unwind)]
  pub fn new(
    env: Env,
    config: Option<Unknown>,
    options: NativeRunOptions,
    catalog: &NativeCatalog,
    #[napi(ts_arg_type = "(kind: number, id: number, payload: string) => void")] port: port::PortFn,
  ) -> Self {
    let config = read_optional(&env, config, config::CONFIG_KEYS);
    let run = run::Run::new(
      run::RunOptions {
        config,
        scope: run::Scope {
          run_id: options.run_id,
          session_id: options.session_id,
          session_key: options.session_key,
          agent_id: options.agent_id,
        },
        catalog: catalog.handle.clone(),
        disable_tools: options.disable_tools.unwrap_or(false),
        raw_model_call: options.raw_model_call.unwrap_or(false),
        guest: match options.guest.as_deref() {
          Some("tool_search") => GuestKind::ToolSearch,
          _ => GuestKind::CodeMode,
        },
      },
      Arc::new(port::JsPort::new(port)),
    );
    NativeRun { run }
  }

  #[napi(getter, catch_unwind)]
  pub fn active(&self) -> bool {
    self.run.active
  }

  /// Why the run is inactive; `undefined` when it is active.
  #[napi(getter, catch_unwind)]
  pub fn inactive_reason(&self) -> Option<CodeModeInactiveReason> {
    self.run.inactive_reason
  }

  #[napi(getter, catch_unwind)]
  pub fn config(&self) -> CodeModeConfig {
    self.run.config.clone()
  }

  /// What the model sees: `exec` and `wait` when active, none otherwise.
  #[napi(getter, catch_unwind)]
  pub fn model_tools(&self) -> Vec<ModelToolDefinition> {
    self.run.model_tools().to_vec()
  }

  /// The guest's `ALL_TOOLS`.
  #[napi(getter, catch_unwind)]
  pub fn catalog(&self) -> Vec<ToolCatalogEntry> {
    self
      .run
      .catalog
      .guest_entries()
      .map(ToolCatalogEntry::from)
      .collect()
  }

  /// The catalog tool a nested call names by `toolIndex` (in a call batch, see
  /// `lib/generated/protocol.js`), or null past the end of the catalog.
  #[napi(catch_unwind)]
  pub fn call_tool(&self, tool_index: u32) -> Option<CallTool> {
    let entry = self.run.catalog.entries().get(tool_index as usize)?;
    Some(CallTool {
      id: entry.id.clone(),
      name: entry.name.clone(),
      source: entry.source.as_str().to_string(),
      source_name: entry.source_name.clone(),
      mcp: entry.mcp.as_ref().map(|m| CallToolMcp {
        server_name: m.server.clone(),
        tool_name: m.tool.clone(),
        operation: m.operation.clone(),
      }),
    })
  }

  /// What every nested `toolCallId` starts with (then `<cell>_<call>`).
  #[napi(getter, catch_unwind)]
  pub fn nested_id_prefix(&self) -> String {
    sandbox::nested_id_prefix().to_string()
  }

  /// The run's counters, host-only.
  #[napi(getter, catch_unwind)]
  pub fn telemetry(&self) -> CodeModeRunTelemetry {
    self.run.run_telemetry()
  }

  /// Registered namespaces this run's catalog makes visible: the JS layer builds their scopes
  /// next, and hands them to `installNamespaces`.
  #[napi(catch_unwind)]
  pub fn namespace_candidates(&self, env: &Env) -> Result<Vec<namespaces::NamespaceCandidate>> {
    Ok(
      self
        .run
        .namespace_candidates(realm_registry(env)?)
        .into_iter()
        .map(namespaces::NamespaceCandidate::from)
        .collect(),
    )
  }

  /// Takes the candidates' scopes (once); returns the namespaces hidden for this run, each with
  /// why (the JS layer reports them as `namespace_hidden` events).
  #[napi(catch_unwind)]
  pub fn install_namespaces(
    &self,
    env: &Env,
    scopes: Vec<namespaces::NamespaceScope>,
  ) -> Result<Vec<CodeModeHiddenNamespace>> {
    Ok(
      self
        .run
        .install_namespaces(realm_registry(env)?, &scopes)
        .into_iter()
        .map(|hidden| CodeModeHiddenNamespace {
          id: hidden.id,
          reason: hidden.reason,
        })
        .collect(),
    )
  }

  /// Starts an exec leg keyed `leg`; returns the result JSON now if the input is refused or
  /// the leg's signal had already fired.
  #[napi(catch_unwind)]
  pub fn exec(
    &self,
    env: Env,
    input: Unknown,
    leg: u32,
    tool_call_id: Option<String>,
    aborted: bool,
  ) -> Option<String> {
    let input = input::read_input(&env, &input, run::EXEC_KEYS);
    let leg = run::LegStart {
      id: leg,
      tool_call_id,
      aborted,
    };
    self.run.exec(&input, leg)
  }

  /// Starts a wait leg keyed `leg` (same contract as `exec`).
  #[napi(catch_unwind)]
  pub fn wait(
    &self,
    env: Env,
    input: Unknown,
    leg: u32,
    tool_call_id: Option<String>,
    aborted: bool,
  ) -> Option<String> {
    let input = input::read_input(&env, &input, run::WAIT_KEYS);
    let leg = run::LegStart {
      id: leg,
      tool_call_id,
      aborted,
    };
    self.run.wait(&input, leg)
  }

  /// Tool Search's `tool_call`: starts a cell keyed `leg` that makes one call of catalog tool
  /// `id` with `inputJson` as its input, given as data (same contract as `exec`).
  #[napi(catch_unwind)]
  pub fn exec_call(
    &self,
    id: String,
    input_json: String,
    leg: u32,
    tool_call_id: Option<String>,
    aborted: bool,
  ) -> Option<String> {
    let leg = run::LegStart {
      id: leg,
      tool_call_id,
      aborted,
    };
    self.run.exec_call(id, input_json, leg)
  }

  /// Delivers a nested call's outcome: `payload` is JSON text (ok) or an error message.
  #[napi(catch_unwind)]
  pub fn settle(&self, cell: f64, call: u32, ok: bool, payload: String) {
    self
      .run
      .settle_many(cell as u64, std::iter::once((call, ok, Some(payload))));
  }

  /// Delivers many outcomes at once. `numbers` holds `[cell, call, ok (0 or 1), length]` for
  /// each, in order; `payloads` is their payloads (as `settle` takes them) joined, each
  /// `length` UTF-16 code units long. A malformed entry ends the list there.
  #[napi(catch_unwind)]
  pub fn settle_many(&self, numbers: Float64ArraySlice, payloads: Utf16String) {
    for (cell, outcomes) in protocol::settle::decode(&numbers, &payloads) {
      self.run.settle_many(cell, outcomes);
    }
  }

  /// The exec/wait signal of leg `leg` aborted.
  #[napi(catch_unwind)]
  pub fn abort_leg(&self, leg: u32) {
    self.run.abort_leg(leg);
  }

  /// Drops every cell of this run and cancels their nested calls.
  #[napi(catch_unwind)]
  pub fn abort(&self) {
    self.run.abort();
  }
}

/// An optional argument read as [`input::read_value`] reads it (absent: `Missing`).
fn read_optional(env: &Env, value: Option<Unknown>, keys: &'static [&'static str]) -> input::Field {
  value.map_or(input::Field::Missing, |value| {
    input::read_value(env, &value, keys)
  })
}
