//! Runs test262 cells on pristine QuickJS, as the engine runs a cell: the cell's text wrapped
//! in an async function (`crates/frontend/src/wrapper.rs`), evaluated as a strict global script
//! in a fresh runtime, the function called and its promise driven to the end (jobs, then timers).
//! Reads one JSON object `{ "id", "code" }` per line on stdin; writes `{ "id", "kind", "name",
//! "message" }` per line on stdout, `kind` being `pass`, `parse`, `runtime` or `limit`
//! (tools/test262/cells.mjs judges them).
//!
//! The front end's completion rewrite (`return (…)` around the last expression) is not applied:
//! it changes only the cell's value, which test262 does not look at.

use rquickjs::context::EvalOptions;
use rquickjs::promise::PromiseState;
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Promise, Runtime, Value};
use serde_json::{Value as Json, json};
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// The engine's defaults: a cell's memoryLimitBytes and its VM stack (crates/engine/src/vm.rs).
const MEMORY_LIMIT: usize = 64 << 20;
const MAX_STACK: usize = 1 << 20;
/// Each test gets this much time (a cell's default timeoutMs).
const TIME_LIMIT: Duration = Duration::from_secs(10);

/// What a cell sees besides the language: setTimeout/clearTimeout (fired in due order once no
/// job is left, on a virtual clock) and console. Returns the function that fires the next timer.
const PRELUDE: &str = r#"(() => {
  'use strict';
  const queue = [];
  let seq = 0, now = 0;
  const constant = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: false, enumerable: false, configurable: false });
  constant('setTimeout', (callback, delay, ...args) => {
    if (typeof callback !== 'function') throw new TypeError('setTimeout callback must be a function.');
    const ms = +delay;
    queue.push({ id: ++seq, due: now + (ms > 0 ? ms : 0), callback, args });
    return seq;
  });
  constant('clearTimeout', (id) => {
    const i = queue.findIndex((t) => t.id === id);
    if (i >= 0) queue.splice(i, 1);
  });
  const log = () => {};
  constant('console', Object.freeze({ log, info: log, warn: log, error: log, debug: log }));
  return () => {
    if (queue.length === 0) return false;
    let best = 0;
    for (let i = 1; i < queue.length; i++) if (queue[i].due < queue[best].due) best = i;
    const [timer] = queue.splice(best, 1);
    now = timer.due;
    try { timer.callback(...timer.args); } catch {}
    return true;
  };
})()"#;

const PREFIX: &str = "(async function () {";
const SUFFIX: &str = "\n})";

fn describe<'js>(ctx: &Ctx<'js>, error: CaughtError<'js>) -> (String, String) {
  match error {
    CaughtError::Exception(exception) => {
      let name = exception
        .get::<_, Value>("name")
        .ok()
        .and_then(|v| v.as_string().and_then(|s| s.to_string().ok()))
        .unwrap_or_default();
      (name, exception.message().unwrap_or_default())
    }
    CaughtError::Value(value) => {
      let name = value
        .as_object()
        .and_then(|o| o.get::<_, Value>("name").ok())
        .and_then(|v| v.as_string().and_then(|s| s.to_string().ok()))
        .unwrap_or_default();
      let _ = ctx;
      (name, format!("{value:?}"))
    }
    CaughtError::Error(error) => (String::new(), error.to_string()),
  }
}

fn run(code: &str) -> (&'static str, String, String) {
  let rt = Runtime::new().expect("a runtime");
  rt.set_memory_limit(MEMORY_LIMIT);
  rt.set_max_stack_size(MAX_STACK);
  let deadline = Instant::now() + TIME_LIMIT;
  rt.set_interrupt_handler(Some(Box::new(move || Instant::now() > deadline)));
  let context = Context::full(&rt).expect("a context");
  context.with(|ctx| {
    let fire: Function = match ctx.eval(PRELUDE) {
      Ok(fire) => fire,
      Err(error) => return ("limit", String::new(), format!("prelude: {error}")),
    };
    let mut options = EvalOptions::default();
    options.strict = true;
    options.global = true;
    let source = format!("{PREFIX}{code}{SUFFIX}");
    let main: Function = match ctx.eval_with_options(source, options).catch(&ctx) {
      Ok(main) => main,
      Err(error) => {
        let (name, message) = describe(&ctx, error);
        return if Instant::now() > deadline {
          ("limit", "timeout".into(), message)
        } else {
          ("parse", name, message)
        };
      }
    };
    let promise: Promise = match main.call(()).catch(&ctx) {
      Ok(promise) => promise,
      Err(error) => {
        let (name, message) = describe(&ctx, error);
        return ("runtime", name, message);
      }
    };
    loop {
      while ctx.execute_pending_job() {}
      if Instant::now() > deadline {
        return ("limit", "timeout".into(), String::new());
      }
      if promise.state() != PromiseState::Pending {
        break;
      }
      match fire.call::<_, bool>(()) {
        Ok(true) => continue,
        Ok(false) => {
          return (
            "limit",
            "pending".into(),
            "a promise nothing settles".into(),
          );
        }
        Err(error) => return ("limit", "timer".into(), error.to_string()),
      }
    }
    match promise.result::<Value>() {
      Some(Ok(_)) => ("pass", String::new(), String::new()),
      Some(Err(error)) => {
        let caught = Err::<(), _>(error).catch(&ctx).unwrap_err();
        let (name, message) = describe(&ctx, caught);
        if Instant::now() > deadline || message.contains("interrupted") {
          ("limit", "timeout".into(), message)
        } else if message.contains("out of memory") {
          ("limit", "memory".into(), message)
        } else {
          ("runtime", name, message)
        }
      }
      None => ("limit", "pending".into(), String::new()),
    }
  })
}

fn main() {
  // A worker's stack, as the engine's cells get (crates/engine: WORKER_STACK).
  let worker = std::thread::Builder::new()
    .stack_size(64 << 20)
    .spawn(|| {
      let stdin = std::io::stdin();
      let mut out = std::io::BufWriter::new(std::io::stdout());
      for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        if line.trim().is_empty() {
          continue;
        }
        let item: Json = serde_json::from_str(&line).expect("one JSON object per line");
        let id = item["id"].clone();
        let code = item["code"].as_str().unwrap_or_default();
        let (kind, name, message) = run(code);
        let message: String = message.chars().take(300).collect();
        writeln!(
          out,
          "{}",
          json!({ "id": id, "kind": kind, "name": name, "message": message })
        )
        .expect("stdout");
        out.flush().expect("stdout");
      }
    })
    .expect("a worker thread");
  worker.join().expect("the worker");
}
