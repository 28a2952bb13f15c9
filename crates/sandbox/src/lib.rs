//! The code-mode sandbox: everything whose cost or behaviour the model's input controls, run
//! in a process of its own that the addon supervises (`src/main.rs` is that executable; the
//! addon's half is the root crate's `src/sandbox/`). It hosts the engine (QuickJS VMs, the
//! workers, parked cells), the front end (swc) and the guest side of the three hosts: code
//! mode's bridge (`bridge.rs`), Tool Search's (`toolsearch.rs`) and the OpenClaw executor's
//! (`executor/`).
//!
//! [`Sandbox::handle`] takes the addon's [`Command`]s, one at a time, on the thread that reads
//! the channel; it never waits for guest work (that runs on the engine's workers), and
//! everything the process says goes through one [`Sink`] as [`Report`]s.

pub mod bridge;
pub mod executor;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod mcp;
mod namespaces;
pub mod run;
pub mod toolsearch;

#[cfg(test)]
mod tests;

// The layers below, under the names the modules here use for them.
use code_mode_engine as engine;
use code_mode_frontend as frontend;
use code_mode_protocol::error;

use code_mode_catalog::building::Building;
use code_mode_engine::{Cell, Delivery, Guest, Prepare, bare};
use code_mode_protocol::error::{ErrorCode, Failure, FailurePhase};
use code_mode_protocol::wire::{
  Answer, Command, Data, GuestKind, Program, Report, RunSpec, SearchQuery, Settings, failure_report,
};
use parking_lot::Mutex;
use run::{Counters, GuestRun};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

/// Where the process's reports go: the channel to the addon (a test's queue in tests).
pub trait Sink: Send + Sync + 'static {
  fn report(&self, report: Report);
}

/// Largest cell source accepted (the addon checks first; this is the boundary).
pub use code_mode_protocol::MAX_CODE_BYTES;

// Cells are prepared on the engine's workers: their stacks must hold a preparation.
const _: () = assert!(frontend::PREPARE_STACK <= engine::WORKER_STACK);
// The addon computes the sandbox's memory backstop without the engine (crates/confine).
const _: () = assert!(code_mode_confine::WORKER_STACK == engine::WORKER_STACK as u64);
const _: () =
  assert!(code_mode_confine::LONG_SLICES_PER_WORKER == engine::LONG_SLICES_PER_WORKER as u64);

/// How long a structured search may run on a worker (a query is capped long before).
const SEARCH_BUDGET: Duration = Duration::from_secs(5);
/// How long a bench preparation may run.
const BENCH_BUDGET: Duration = Duration::from_secs(10);
/// Executor data texts kept for reuse by later cells (each is one run's catalog as JSON).
const MAX_DATA: usize = 8;

/// The guest of a kind of run.
pub fn guest(kind: GuestKind) -> &'static Guest<GuestRun> {
  match kind {
    GuestKind::CodeMode => &bridge::CODE_MODE,
    GuestKind::ToolSearch => &toolsearch::TOOL_SEARCH,
  }
}

/// One sandbox process's state: the catalogs, runs and executor cells the addon defined here.
pub struct Sandbox {
  sink: Arc<dyn Sink>,
  catalogs: Mutex<HashMap<u64, Arc<Building>>>,
  runs: Mutex<HashMap<u64, Arc<GuestRun>>>,
  /// Executor data texts by the addon's id, oldest first.
  data: Mutex<VecDeque<(u64, Arc<String>)>>,
  executor: executor::Cells,
}

impl Sandbox {
  pub fn new(sink: Arc<dyn Sink>) -> Sandbox {
    Sandbox {
      sink,
      catalogs: Mutex::new(HashMap::new()),
      runs: Mutex::new(HashMap::new()),
      data: Mutex::new(VecDeque::new()),
      executor: executor::Cells::default(),
    }
  }

  fn answer(&self, request: u64, answer: Answer) {
    self.sink.report(Report::Answer { request, answer });
  }

  /// Tells the addon that the leg of `request` started on a worker.
  fn started(&self, request: u64) -> executor::Started {
    let sink = self.sink.clone();
    Box::new(move || sink.report(Report::Started { request }))
  }

  /// A reply that answers `request` (as `answer` makes it of the value), for work that finishes
  /// on a worker.
  fn reply<T: 'static>(&self, request: u64, answer: fn(T) -> Answer) -> Box<dyn FnOnce(T) + Send> {
    let sink = self.sink.clone();
    Box::new(move |value| {
      sink.report(Report::Answer {
        request,
        answer: answer(value),
      })
    })
  }

  /// A reply that answers `request` with text (a parked cell's bytes).
  fn text_reply(&self, request: u64) -> executor::TextReply {
    self.reply(request, Answer::Text)
  }

  /// A reply that answers executor leg `request`, on whichever thread the leg ends.
  fn leg_reply(&self, request: u64) -> executor::Reply {
    self.reply(request, Answer::Leg)
  }

  /// Handles one command from the addon.
  pub fn handle(&self, command: Command) {
    match command {
      Command::Configure(settings) => configure(&settings),
      Command::Catalog { id, tools_json } => {
        let building = Arc::new(Building::start(tools_json));
        self.catalogs.lock().insert(id, building);
      }
      Command::ForgetCatalog { id } => {
        self.catalogs.lock().remove(&id);
      }
      Command::Run(spec) => self.define_run(*spec),
      Command::ForgetRun { run } => {
        self.runs.lock().remove(&run);
      }
      Command::Exec {
        run,
        cell,
        leg,
        program,
      } => {
        let Some(guest_run) = self.runs.lock().get(&run).cloned() else {
          let failure = unknown("run");
          return self.sink.report(failure_report(run, cell, leg, failure));
        };
        let prepare = prepare(&guest_run, cell, program);
        Cell::exec(
          cell,
          guest_run.clone(),
          guest_run.guest,
          leg,
          prepare,
          |_| {},
        );
      }
      Command::Resume {
        run,
        cell,
        token,
        leg,
      } => {
        let guest_run = self.runs.lock().get(&run).cloned();
        let resumed = match (guest_run, Cell::parked(&token)) {
          (Some(guest_run), Some(parked)) if parked.id == cell => {
            parked.resume(guest_run, leg.clone(), |_| {})
          }
          (None, _) => Err(unknown("run")),
          _ => Err(Failure::invalid(error::messages::RUN_UNAVAILABLE)),
        };
        if let Err(failure) = resumed {
          self.sink.report(failure_report(run, cell, leg, failure));
        }
      }
      Command::Settle { cell, outcomes } => engine::deliver(
        cell,
        outcomes.into_iter().map(|o| Delivery {
          call: o.call,
          ok: o.ok,
          payload: o.payload,
        }),
      ),
      Command::Abort { cell } => {
        if let Some(cell) = Cell::live(cell) {
          cell.abort();
        }
      }
      Command::Search {
        request,
        run,
        queries,
      } => self.search(request, run, queries),
      // Compiled here, in order: an `ExecutorStart` right behind it (a new process is told the
      // controller just before its first cell) finds it. The source is the gateway's own guest
      // controller, compiled once per process, not a cell's.
      Command::Compile {
        request,
        key,
        source,
      } => {
        let answer = match executor::compile(&key, &source) {
          Ok(()) => Answer::Unit,
          Err(message) => Answer::Error(message),
        };
        self.answer(request, answer);
      }
      Command::ExecutorStart {
        request,
        cell,
        controller,
        data,
        memory_limit_bytes,
        max_pending_tool_calls,
        max_output_bytes,
        source,
        location,
        timeout_ms,
      } => {
        let reply = self.leg_reply(request);
        let Some(data) = self.data(data) else {
          return reply(
            executor::failed_json(
              "runtime_unavailable",
              "the sandbox lost this run's data; start the cell again",
            )
            .into(),
          );
        };
        let start = executor::Start {
          controller,
          data,
          memory_limit_bytes,
          max_pending_tool_calls,
          max_output_bytes,
          source,
          location,
        };
        self
          .executor
          .start(cell, start, timeout_ms, self.started(request), reply);
      }
      Command::ExecutorNext {
        request,
        cell,
        settled,
        pending,
        timeout_ms,
      } => {
        let reply = self.leg_reply(request);
        let started = self.started(request);
        self
          .executor
          .next(cell, settled, pending, timeout_ms, started, reply);
      }
      Command::ExecutorPark { request, cell } => {
        let reply = self.text_reply(request);
        self.executor.park(cell, reply);
      }
      Command::ExecutorAbort { cell } => self.executor.abort(cell),
      Command::ExecutorDispose { cell } => self.executor.dispose(cell),
      Command::Prepare {
        request,
        code,
        typescript,
        iterations,
      } => {
        let sink = self.sink.clone();
        let work = Box::new(move || {
          let micros = frontend::median_prepare_micros(code, typescript, iterations);
          sink.report(Report::Answer {
            request,
            answer: Answer::Number(micros),
          });
        });
        self.spawn(request, 0, work, BENCH_BUDGET);
      }
      Command::Ping { request } => {
        if !testing::silent() {
          self.answer(request, Answer::Unit)
        }
      }
      Command::Testing(command) => testing::handle(self, command),
    }
  }

  fn define_run(&self, spec: RunSpec) {
    let building = self.catalogs.lock().get(&spec.catalog).cloned();
    // A run whose catalog never came has none: its cells see an empty catalog rather than
    // failing in a way the addon cannot explain.
    let building = building.unwrap_or_else(|| Arc::new(Building::start(String::new())));
    let guest = guest(spec.guest);
    let run = Arc::new(GuestRun::new(spec, guest, building, self.sink.clone()));
    self.runs.lock().insert(run.id, run);
  }

  /// An executor cell's data: new text is kept for later cells (a few at most).
  fn data(&self, data: Data) -> Option<Arc<String>> {
    let mut table = self.data.lock();
    match data {
      Data::New { id, text } => {
        let text = Arc::new(text);
        table.retain(|(known, _)| *known != id);
        if table.len() >= MAX_DATA {
          table.pop_front();
        }
        table.push_back((id, text.clone()));
        Some(text)
      }
      Data::Known { id } => table
        .iter()
        .find(|(known, _)| *known == id)
        .map(|(_, text)| text.clone()),
    }
  }

  /// Tool Search's structured `tool_search`, on a worker (a query's cost is the model's to
  /// choose; it never runs on the channel's reader).
  fn search(&self, request: u64, run: u64, queries: Vec<SearchQuery>) {
    let Some(guest_run) = self.runs.lock().get(&run).cloned() else {
      return self.answer(request, Answer::Error(unknown("run").message));
    };
    let sink = self.sink.clone();
    let tenant = guest_run.tenant;
    let work = Box::new(move || {
      // Every query of the call in one piece of work: an array of each query's hits (or
      // `{ hits, queryTruncated }` when only a query's first part was searched), in order.
      let answer = engine::stuck::guest(|| {
        let mut json = String::from("[");
        for (i, SearchQuery { query, limit }) in queries.iter().enumerate() {
          let limit = guest_run.search_limit(*limit)?;
          if i > 0 {
            json.push(',');
          }
          json.push_str(&toolsearch::hits(&guest_run, query, limit).structured_json());
        }
        json.push(']');
        Ok::<_, &str>(json)
      });
      let answer = match answer {
        Ok(json) => Answer::Text(json),
        Err(message) => Answer::Error(message.to_string()),
      };
      sink.report(Report::Answer { request, answer });
    });
    self.spawn(request, tenant, work, SEARCH_BUDGET);
  }

  /// Runs `work` on a worker under the watchdog; answers `request` with an error if it cannot
  /// start or gets stuck.
  fn spawn(&self, request: u64, tenant: u64, work: Box<dyn FnOnce() + Send>, budget: Duration) {
    let sink = self.sink.clone();
    let stuck = Box::new(move || {
      sink.report(Report::Answer {
        request,
        answer: Answer::Error("the sandbox gave up on this request (stuck past its budget)".into()),
      })
    });
    if let Err(message) = bare::spawn(tenant, work, Some(budget), stuck) {
      self.answer(request, Answer::Error(message));
    }
  }
}

fn unknown(what: &str) -> Failure {
  Failure::new(
    ErrorCode::RuntimeUnavailable,
    format!("the code mode sandbox process does not know this {what}."),
  )
  .in_phase(FailurePhase::Host)
}

/// Applies process-wide settings.
pub fn configure(settings: &Settings) {
  code_mode_catalog::calls::set_nested_id_prefix(settings.nested_id_prefix.clone());
  // Admission is the addon's (it sees every process); parked cells are capped there too, and
  // here only as a backstop.
  // The address-space backstop (`harden.rs`) is set once, for the first count: a process's
  // workers may shrink, never grow past it.
  static FIRST: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
  let threads = settings
    .worker_threads
    .min(*FIRST.get_or_init(|| settings.worker_threads));
  engine::configure(
    Some(threads as usize),
    Some(usize::MAX >> 1),
    Some(settings.max_parked_cells as usize),
  );
}

/// How a cell's program is made on its first slice.
pub(crate) fn prepare(run: &Arc<GuestRun>, cell: u64, program: Program) -> Prepare {
  let (code, typescript) = match program {
    Program::Source { code, typescript } => (code, typescript),
    Program::Call { id, input } => {
      run.prepare_call(cell, id, input);
      (toolsearch::PREPARED_CALL_PROGRAM.to_string(), false)
    }
  };
  let run = run.clone();
  Box::new(move |deadline| {
    if code.len() > MAX_CODE_BYTES {
      return Err(Failure::invalid(format!(
        "code is {} bytes; code mode accepts at most {MAX_CODE_BYTES}.",
        code.len()
      )));
    }
    let language = if typescript {
      Counters::bump(&run.counters.typescript_transforms);
      frontend::Language::TypeScript
    } else {
      frontend::Language::JavaScript
    };
    let program = frontend::prepare_until(&code, language, deadline, run.limits_named())?;
    let positions = program.positions;
    Ok(engine::Program {
      code: program.code,
      filename: program.language.filename(),
      positions: Box::new(move |line, column| positions.user_position(line, column)),
    })
  })
}

/// The test-only commands: refused unless both ends are testing builds.
mod testing {
  use super::*;

  #[cfg(feature = "testing")]
  pub(super) fn handle(sandbox: &Sandbox, command: code_mode_protocol::wire::Testing) {
    use code_mode_protocol::wire::Testing;
    match command {
      Testing::Fault { kind, run } => {
        if let Err(message) = crate::engine::testing::arm_named(&kind, run) {
          sandbox.sink.report(Report::Log { message });
        }
      }
      Testing::Stall { ms, run } => crate::engine::testing::arm(
        crate::engine::testing::Fault::StallSlice(Duration::from_millis(ms.into())),
        run,
      ),
      Testing::Abandoned { request } => sandbox.answer(
        request,
        Answer::Number(crate::engine::abandoned_workers() as f64),
      ),
      Testing::Probe { request, operation } => {
        let answer = match probe(&operation) {
          Ok(text) => Answer::Text(text),
          Err(text) => Answer::Error(text),
        };
        sandbox.answer(request, answer)
      }
      Testing::Silence { ms } => {
        let until = std::time::Instant::now() + Duration::from_millis(ms.into());
        *SILENT_UNTIL.lock() = Some(until);
      }
    }
  }

  #[cfg(feature = "testing")]
  static SILENT_UNTIL: parking_lot::Mutex<Option<std::time::Instant>> =
    parking_lot::Mutex::new(None);

  /// Whether the process plays dead now (`Testing::Silence`): no heartbeat, no ping answered.
  #[cfg(feature = "testing")]
  pub fn silent() -> bool {
    SILENT_UNTIL
      .lock()
      .is_some_and(|until| std::time::Instant::now() < until)
  }

  /// A release build never plays dead.
  #[cfg(not(feature = "testing"))]
  pub fn silent() -> bool {
    false
  }

  #[cfg(not(feature = "testing"))]
  pub(super) fn handle(sandbox: &Sandbox, _command: code_mode_protocol::wire::Testing) {
    sandbox.sink.report(Report::Log {
      message: "a release sandbox refuses test-only commands".into(),
    });
  }

  /// Tries one forbidden operation: `Ok(what succeeded)` is a containment failure; `Err(why
  /// not)` is the expected answer (when the filter refuses rather than kills).
  #[cfg(feature = "testing")]
  fn probe(operation: &str) -> Result<String, String> {
    PROBE.get().map_or_else(
      || Err("no probe in this build".into()),
      |probe| probe(operation),
    )
  }

  /// Tries one forbidden operation: `Ok(what succeeded)` or `Err(why not)`.
  #[cfg(feature = "testing")]
  pub type Probe = fn(&str) -> Result<String, String>;

  /// The executable's probe of forbidden operations (platform code lives in `main.rs`).
  #[cfg(feature = "testing")]
  pub static PROBE: std::sync::OnceLock<Probe> = std::sync::OnceLock::new();
}

#[cfg(feature = "testing")]
pub use testing::PROBE;
pub use testing::silent;
