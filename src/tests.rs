//! End-to-end tests of the runtime without Node: a channel stands in for the JS layer, and the
//! sandbox runs in the test process (`in_process`), behind the same wire format as the real
//! one. The executable's own start-up and lock-down are the vitest suites' to test.

use crate::input::Field;
use crate::port::Port;
use crate::protocol::Message;
use crate::run::{CatalogHandle, EXEC_KEYS, LegStart, Run, RunOptions, Scope, WAIT_KEYS};
use crate::sandbox::process::{Outbox, Process};
use code_mode_protocol::wire::{self, GuestKind, Report};
use crossbeam_channel::{Receiver, Sender, unbounded};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The command channel of a sandbox running in this process.
struct MemoryOutbox(parking_lot::Mutex<Option<Sender<Vec<u8>>>>);

impl Outbox for MemoryOutbox {
  fn send(&self, frame: Vec<u8>) -> bool {
    self
      .0
      .lock()
      .as_ref()
      .is_some_and(|tx| tx.send(frame).is_ok())
  }
  fn backlog(&self) -> usize {
    0
  }
  fn close(&self) {
    self.0.lock().take();
  }
}

struct MemorySink(Sender<Vec<u8>>);

impl code_mode_sandbox::Sink for MemorySink {
  fn report(&self, report: Report) {
    let _ = self.0.send(wire::encode(&report));
  }
}

fn unframe<T: serde::de::DeserializeOwned>(frame: &[u8]) -> T {
  wire::decode(&frame[4..]).expect("a frame from the other end decodes")
}

/// A sandbox in this process: a thread handles its commands, another reads its reports.
fn in_process(
  id: u64,
  dispatch: fn(&Arc<Process>, Report),
  died: fn(&Arc<Process>),
  now_ms: u64,
) -> Arc<Process> {
  let (commands, command_frames) = unbounded::<Vec<u8>>();
  let (reports, report_frames) = unbounded::<Vec<u8>>();
  let outbox = MemoryOutbox(parking_lot::Mutex::new(Some(commands)));
  let process = Process::new(id, 0, Arc::new(outbox), None, now_ms);
  std::thread::spawn(move || {
    let sandbox = code_mode_sandbox::Sandbox::new(Arc::new(MemorySink(reports)));
    for frame in command_frames {
      sandbox.handle(unframe(&frame));
    }
  });
  let reading = process.clone();
  std::thread::spawn(move || {
    for frame in report_frames {
      dispatch(&reading, unframe(&frame));
    }
    died(&reading);
  });
  process
}

struct ChannelPort(Sender<Message>);

impl Port for ChannelPort {
  fn send(&self, message: Message) {
    let _ = self.0.send(message);
  }
}

struct Harness {
  run: Arc<Run>,
  messages: Receiver<Message>,
  next_leg: u32,
  /// Calls seen so far: the parsed `NestedToolCall` payloads.
  calls: Vec<Value>,
  /// How many call messages (batches) brought them.
  batches: usize,
  events: Vec<Value>,
}

fn tools() -> Value {
  json!([
    { "name": "read_file", "description": "Read a file from the workspace", "parameters": { "type": "object" } },
    { "name": "web-search", "description": "Search the web", "source": "openclaw", "sourceName": "web" },
    { "name": "slow", "description": "A slow tool" },
    { "name": "create_issue", "source": "mcp", "sourceName": "github" },
  ])
}

impl Harness {
  fn new(config: Value) -> Harness {
    Harness::for_run("run-1", config)
  }

  /// A harness whose run id is its own (test faults are armed per run id).
  fn for_run(run_id: &str, config: Value) -> Harness {
    Harness::for_guest(run_id, config, GuestKind::CodeMode)
  }

  /// A harness whose cells run in VMs of `guest`.
  fn for_guest(run_id: &str, config: Value, guest: GuestKind) -> Harness {
    crate::sandbox::run_in_process(in_process);
    let (tx, rx) = unbounded();
    let run = Run::new(
      RunOptions {
        config: Field::from_json(&config, crate::config::CONFIG_KEYS),
        scope: Scope {
          run_id: run_id.into(),
          session_id: Some("s".into()),
          ..Default::default()
        },
        catalog: Arc::new(CatalogHandle::new(tools().to_string())),
        disable_tools: false,
        raw_model_call: false,
        guest,
      },
      Arc::new(ChannelPort(tx)),
    );
    Harness {
      run,
      messages: rx,
      next_leg: 0,
      calls: Vec::new(),
      batches: 0,
      events: Vec::new(),
    }
  }

  /// Runs a leg to its result, answering calls with `answer(call) -> Some((ok, payload))`
  /// (None leaves the call pending).
  fn leg(
    &mut self,
    start: impl FnOnce(&Arc<Run>, u32) -> Option<String>,
    answer: &dyn Fn(&Value) -> Option<(bool, String)>,
  ) -> Value {
    self.next_leg += 1;
    let leg = self.next_leg;
    if let Some(result) = start(&self.run, leg) {
      return serde_json::from_str(&result).unwrap();
    }
    loop {
      let message = self
        .messages
        .recv_timeout(Duration::from_secs(20))
        .expect("a message");
      match message {
        Message::LegDone { leg: done, result } if done == leg => {
          return serde_json::from_str(&result).unwrap();
        }
        Message::LegDone { .. } => {}
        Message::Calls { cell, payload } => {
          let batch = expand_batch(&self.run, cell, &payload);
          self.batches += 1;
          for call in batch {
            if let Some((ok, payload)) = answer(&call) {
              self.run.settle(
                call["cell"].as_u64().unwrap(),
                call["call"].as_u64().unwrap() as u32,
                ok,
                Some(payload),
              );
            }
            self.calls.push(call);
          }
        }
        Message::Event { payload } => self.events.push(serde_json::from_str(&payload).unwrap()),
        Message::AbortCell { .. } => {}
      }
    }
  }

  fn exec_with(&mut self, code: &str, answer: &dyn Fn(&Value) -> Option<(bool, String)>) -> Value {
    let input = Field::from_json(&json!({ "code": code }), EXEC_KEYS);
    self.leg(|run, leg| run.exec(&input, start(leg, "tc-exec")), answer)
  }

  fn exec(&mut self, code: &str) -> Value {
    self.exec_with(code, &|call| {
      Some((
        true,
        json!({ "echo": call["input"], "tool": call["name"] }).to_string(),
      ))
    })
  }

  fn wait(&mut self, run_id: &str, answer: &dyn Fn(&Value) -> Option<(bool, String)>) -> Value {
    let input = Field::from_json(&json!({ "runId": run_id }), WAIT_KEYS);
    self.leg(|run, leg| run.wait(&input, start(leg, "tc-wait")), answer)
  }
}

/// A batch of calls as the JS layer reads it (`index.js`), expanded into `NestedToolCall`
/// fields (and `cell`, `call`).
fn expand_batch(run: &Run, cell: u64, payload: &str) -> Vec<Value> {
  let batch: Vec<Value> = serde_json::from_str(payload).unwrap();
  let tools = run.catalog.entries();
  assert_eq!((batch.len() - 1) % 4, 0, "{payload}");
  batch[1..]
    .chunks(4)
    .map(|c| {
      let tool = &tools[c[1].as_u64().unwrap() as usize];
      let mut call = json!({
        "input": c[2], "cell": cell, "call": c[0],
        "id": tool.id, "name": tool.name, "source": tool.source.as_str(), "sourceName": tool.source_name,
        "toolCallId": format!("{}{cell}_{}", crate::sandbox::nested_id_prefix(), c[0]),
        "parentToolCallId": batch[0], "runId": run.scope.run_id, "sessionId": run.scope.session_id,
      });
      if let Some(m) = &tool.mcp {
        call["mcp"] = json!({ "serverName": m.server, "toolName": m.tool, "operation": m.operation });
      }
      if c[3] != 0 {
        call["namespace"] = c[3].clone();
      }
      call
    })
    .collect()
}

fn start(id: u32, tool_call_id: &str) -> LegStart {
  LegStart {
    id,
    tool_call_id: Some(tool_call_id.into()),
    aborted: false,
  }
}

fn enabled() -> Value {
  json!({ "enabled": true, "timeoutMs": 2000 })
}

#[test]
fn completes_with_the_last_expression() {
  let mut h = Harness::new(enabled());
  let r = h.exec("const a = 20;\na + 22");
  assert_eq!(r["status"], "completed", "{r}");
  assert_eq!(r["value"], 42);
  assert_eq!(
    h.exec("return { x: [1, 'two'] }")["value"],
    json!({ "x": [1, "two"] })
  );
  assert_eq!(h.exec("let x = 1;")["value"], Value::Null);
  assert_eq!(h.exec("undefined")["value"], Value::Null);
  assert_eq!(r["telemetry"]["visibleTools"], json!(["exec", "wait"]));
  assert_eq!(r["telemetry"]["catalogSize"], 4);
}

/// Date, Map, Set, typed arrays and DOMException are built on first use (vendored QuickJS
/// patch): built in one cell, never in the next, built then dropped unused, and released with the
/// VM (run this under `valgrind --tool=memcheck` to check the patch's reference counting).
#[test]
fn builtins_built_on_first_use_live_and_die_with_their_vm() {
  let mut h = Harness::new(enabled());
  let touch = "const u = new Uint8Array([104, 105]); let e; try { atob('%') } catch (x) { e = x }\n\
               [u.toBase64(), String(new Float64Array(u)), e instanceof DOMException, e.name,\n\
                new Map([[1, new Set([u])]]).get(1).size, new Date(0).getTime(), new WeakMap().has(u)]";
  let expected = json!([
    "aGk=",
    "104,105",
    true,
    "InvalidCharacterError",
    1,
    0,
    false
  ]);
  for _ in 0..3 {
    assert_eq!(h.exec(touch)["value"], expected);
    assert_eq!(h.exec("typeof Int8Array")["value"], "function");
    assert_eq!(h.exec("1 + 1")["value"], 2);
  }
  // Built, then every reference dropped before the VM is: the GC frees them with the rest.
  let r = h.exec(
    "let t = new Int16Array(4); t = null; globalThis.DataView = undefined; delete globalThis.Int16Array; delete globalThis.Set; Date = 1; 7",
  );
  assert_eq!(r["value"], 7, "{r}");
}

/// JSON.stringify's fast path for plain data (vendored QuickJS patch) writes what the general
/// algorithm writes, and steps aside where it must (getters, toJSON, proxies, holes, cycles…).
/// Under `valgrind --tool=memcheck` this also checks the fast path's memory use.
#[test]
fn json_stringify_fast_path_matches_the_general_algorithm() {
  let mut h = Harness::new(enabled());
  let cases = include_str!("../__test__/fixtures/json-stringify-cases.js");
  let r = h.exec(cases);
  assert_eq!(r["value"], "same", "{r}");
}

#[test]
fn guest_api_and_nested_calls() {
  let mut h = Harness::new(enabled());
  let r = h.exec(
    "const hits = await tools.search('read a file');\n\
     const d = await tools.describe(hits[0].id);\n\
     const out = await tools.call(d.id, { path: 'a.txt' });\n\
     const conv = await tools.web_search({ q: 1 });\n\
     text('hello'); json({ n: 1 }); console.log('a', 2, { b: 3 });\n\
     return { first: hits[0].id, params: d.parameters, out, conv, n: ALL_TOOLS.length, frozen: Object.isFrozen(tools) }",
  );
  assert_eq!(r["status"], "completed", "{r}");
  let v = &r["value"];
  assert_eq!(v["first"], "openclaw:core:read_file");
  assert_eq!(v["params"], json!({ "type": "object" }));
  assert_eq!(
    v["out"],
    json!({ "echo": { "path": "a.txt" }, "tool": "read_file" })
  );
  assert_eq!(v["conv"]["tool"], "web-search");
  assert_eq!(v["n"], 3);
  assert_eq!(v["frozen"], true);
  assert_eq!(
    r["output"],
    json!([{ "type": "text", "text": "hello" }, { "type": "json", "value": { "n": 1 } }, { "type": "text", "text": "a 2 {\"b\":3}" }])
  );
  assert_eq!(r["telemetry"]["searchCount"], 1);
  assert_eq!(r["telemetry"]["callCount"], 2);
  let call = &h.calls[0];
  assert_eq!(call["parentToolCallId"], "tc-exec");
  assert_eq!(call["runId"], "run-1");
  assert_eq!(call["sessionId"], "s");
  assert_ne!(h.calls[0]["toolCallId"], h.calls[1]["toolCallId"]);
}

#[test]
fn unknown_ids_mcp_entries_and_failures_are_catchable() {
  let mut h = Harness::new(enabled());
  let r = h.exec_with(
    "const errors = [];\n\
     for (const id of ['nope', 'mcp:github:create_issue']) { try { await tools.call(id, {}) } catch (e) { errors.push(e.message) } }\n\
     try { await tools.call('openclaw:core:slow') } catch (e) { errors.push(e.message) }\n\
     errors",
    &|_| Some((false, "permission denied".into())),
  );
  assert_eq!(
    r["value"],
    json!([
      "Unknown tool id: nope",
      "Unknown tool id: mcp:github:create_issue",
      "permission denied"
    ])
  );
}

#[test]
fn uncaught_errors_report_the_user_line() {
  let mut h = Harness::new(enabled());
  let r = h.exec("const data = null;\n\nconst n = data.items.length;\nn");
  assert_eq!(r["status"], "failed");
  assert_eq!(r["code"], "internal_error");
  assert_eq!(
    r["error"], "TypeError: cannot read property 'items' of null (line 3, column 11)",
    "{r}"
  );
  let r = h.exec("const data = null;\ndata.items");
  assert_eq!(
    r["error"], "TypeError: cannot read property 'items' of null (line 2, column 1)",
    "{r}"
  );
  let r = h.exec("throw 'boom'");
  assert_eq!(r["error"], "Uncaught boom");
}

#[test]
fn timeout_memory_and_output_limits() {
  let mut h = Harness::new(
    json!({ "enabled": true, "timeoutMs": 300, "memoryLimitBytes": 4194304, "maxOutputBytes": 1024 }),
  );
  let r = h.exec("while (true) {}");
  assert_eq!(r["code"], "timeout", "{r}");
  let r = h.exec("try { let s = 'x'; const a = []; while (true) { a.push(s.repeat(100000) + a.length) } } catch (e) { return 'caught' }");
  assert_eq!(r["code"], "memory_limit_exceeded", "{r}");
  assert_eq!(h.exec("1 + 1")["value"], 2);
  let r = h.exec("for (let i = 0; i < 100; i++) text('0123456789'.repeat(5)); 'done'");
  assert_eq!(r["code"], "output_limit_exceeded", "{r}");
  let kept: usize = r["output"]
    .as_array()
    .unwrap()
    .iter()
    .map(|o| o["text"].as_str().unwrap().len())
    .sum();
  assert_eq!(kept, 1024);
  let r =
    h.exec("function f() { return f() }\ntry { f() } catch (e) { return e instanceof RangeError }");
  assert_eq!(r["value"], true, "{r}");
}

#[test]
fn waiting_and_resume() {
  let mut h = Harness::new(json!({ "enabled": true, "timeoutMs": 200 }));
  let r = h.exec_with(
    "text('before');\nconst v = await tools.slow({});\ntext('after');\nv.x",
    &|_| None,
  );
  assert_eq!(r["status"], "waiting", "{r}");
  assert_eq!(r["reason"], "pending_tools");
  assert_eq!(r["pendingToolCalls"][0]["method"], "call");
  assert_eq!(r["output"], json!([{ "type": "text", "text": "before" }]));
  let token = r["runId"].as_str().unwrap().to_string();
  let call = h.calls.last().unwrap().clone();
  h.run.settle(
    call["cell"].as_u64().unwrap(),
    call["call"].as_u64().unwrap() as u32,
    true,
    Some("{\"x\":7}".into()),
  );
  let again = h.wait(&token, &|_| None);
  assert_eq!(again["status"], "completed", "{again}");
  assert_eq!(again["value"], 7);
  assert_eq!(
    again["output"],
    json!([{ "type": "text", "text": "after" }])
  );
  let stale = h.wait(&token, &|_| None);
  assert_eq!(stale["error"], "code mode run is unavailable or expired.");
}

#[test]
fn timers_and_yield() {
  let mut h = Harness::new(enabled());
  let r = h.exec("const order = [];\nsetTimeout(() => order.push('b'), 20);\nsetTimeout(() => order.push('a'), 5);\nconst t = setTimeout(() => order.push('never'), 10); clearTimeout(t);\nawait new Promise(r => setTimeout(r, 40));\norder");
  assert_eq!(r["value"], json!(["a", "b"]), "{r}");
  let r = h.exec("text(1); await yield_control('checkpoint'); text(2); 'resumed'");
  assert_eq!(r["status"], "waiting", "{r}");
  assert_eq!(r["reason"], "yield");
  let again = h.wait(r["runId"].as_str().unwrap(), &|_| None);
  assert_eq!(again["value"], "resumed", "{again}");
  assert_eq!(again["output"], json!([{ "type": "text", "text": "2" }]));
}

#[test]
fn floating_rejections_and_deadlocks() {
  let mut h = Harness::new(enabled());
  let r = h.exec("Promise.reject(new Error('lost'));\n'ok'");
  assert_eq!(r["status"], "completed");
  assert_eq!(
    r["output"],
    json!([{ "type": "text", "text": "Unhandled promise rejection: Error: lost" }])
  );
  let r = h.exec("await new Promise(() => {})");
  assert_eq!(r["status"], "failed");
  assert!(
    r["error"].as_str().unwrap().contains("can never finish"),
    "{r}"
  );
}

#[test]
fn calls_past_the_cap_queue_and_past_the_queue_fail_catchably() {
  let mut h = Harness::new(json!({ "enabled": true, "maxPendingToolCalls": 2 }));
  // 2 in flight and 128 queued: all run, in the order they were started.
  let r = h.exec(
    "const p = [];\nfor (let i = 0; i < 130; i++) p.push(tools.slow({ i }));\n\
     try { await tools.slow({ i: -1 }) } catch (e) { return [e.message, (await Promise.all(p)).map((v) => v.echo.i)] }",
  );
  assert_eq!(r["status"], "completed", "{r}");
  assert_eq!(
    r["value"][0],
    "Too many pending tool calls: 2 are running (maxPendingToolCalls) and 128 more are queued. \
     Await some before starting more.",
    "{r}"
  );
  let order: Vec<i64> = h
    .calls
    .iter()
    .map(|c| c["input"]["i"].as_i64().unwrap())
    .collect();
  assert_eq!(order, (0..130).collect::<Vec<_>>());
  assert_eq!(r["value"][1], json!((0..130).collect::<Vec<_>>()));
}

#[test]
fn queued_calls_start_only_as_in_flight_ones_settle() {
  let mut h = Harness::new(json!({ "enabled": true, "maxPendingToolCalls": 2, "timeoutMs": 300 }));
  // Nothing settles: only the cap reaches the host; the queued calls are listed as pending.
  let r = h.exec_with(
    "await Promise.all([1, 2, 3, 4].map((i) => tools.slow({ i })))",
    &|_| None,
  );
  assert_eq!(r["status"], "waiting", "{r}");
  assert_eq!(h.calls.len(), 2, "{:?}", h.calls);
  assert_eq!(r["pendingToolCalls"].as_array().unwrap().len(), 4, "{r}");
  let token = r["runId"].as_str().unwrap().to_string();
  // Settling the two in flight starts the other two.
  for call in h.calls.clone() {
    let (cell, id) = (
      call["cell"].as_u64().unwrap(),
      call["call"].as_u64().unwrap(),
    );
    h.run
      .settle(cell, id as u32, true, Some(call["input"]["i"].to_string()));
  }
  let r = h.wait(&token, &|call| Some((true, call["input"]["i"].to_string())));
  assert_eq!(r["status"], "completed", "{r}");
  assert_eq!(r["value"], json!([1, 2, 3, 4]), "{r}");
  assert_eq!(h.calls.len(), 4, "{:?}", h.calls);
}

#[test]
fn typescript_cells_run() {
  let mut h = Harness::new(enabled());
  let input = Field::from_json(
    &json!({ "code": "enum E { A = 2 }\nconst x: number = E.A;\nx * 21", "language": "typescript" }),
    EXEC_KEYS,
  );
  let r = h.leg(|run, leg| run.exec(&input, start(leg, "tc")), &|_| None);
  assert_eq!(r["value"], 42, "{r}");
  let input = Field::from_json(
    &json!({ "code": "const x: number | null = null;\n\nx!.toFixed()", "language": "typescript" }),
    EXEC_KEYS,
  );
  let r = h.leg(|run, leg| run.exec(&input, start(leg, "tc")), &|_| None);
  assert!(
    r["error"].as_str().unwrap().ends_with("(line 3, column 1)"),
    "{r}"
  );
}

#[test]
fn engine_compile_errors_name_the_user_line() {
  let mut h = Harness::new(enabled());
  // swc accepts the redeclaration (it is a runtime-semantics check); QuickJS refuses it.
  let r = h.exec("let x = 1;\nlet x = 2;\nx");
  assert_eq!(r["code"], "invalid_input", "{r}");
  let error = r["error"].as_str().unwrap();
  assert!(error.starts_with("SyntaxError: "), "{error}");
  assert!(error.contains("(line 2, column "), "{error}");
  assert!(!error.contains("cell.js"), "{error}");
}

#[test]
fn a_parser_panic_is_a_failed_result() {
  // Found by `cargo fuzz run source_check`: swc's lexer trips a debug assertion on a git
  // conflict marker followed by a regex-like token. Debug builds panic inside the worker (caught:
  // internal_error); release builds report the syntax error. Either way a result, not a crash.
  let mut h = Harness::new(enabled());
  let r = h.exec(" =======\r/==2+");
  assert_eq!(r["status"], "failed", "{r}");
  assert_eq!(h.exec("1 + 1")["value"], 2);
}

#[test]
fn a_parser_panic_on_a_template_is_invalid_input() {
  // Found by `cargo fuzz run source_check` (release build): swc reaches `unreachable!()` on this
  // malformed template literal. The runtime reports a program it cannot read.
  let mut h = Harness::new(enabled());
  let code = "const hits = await +`it\u{16}\u{0}\\2\"\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}nsco});&!\\o`\\\\\\\\i";
  let r = h.exec(code);
  assert_eq!(r["status"], "failed", "{r}");
  assert_eq!(r["code"], "invalid_input", "{r}");
}

#[test]
fn html_like_comments_keep_the_completion_value() {
  // Found by `cargo fuzz run source_check`: swc's span for the token after an HTML-like comment
  // (Annex B, which QuickJS accepts) starts at the comment.
  let mut h = Harness::new(enabled());
  for (code, value) in [
    ("const a = 1;\n-->comment\na + 1", json!(2)),
    (
      "const b = 2;\n--> one\n/* two */ <!-- three\nb * 2",
      json!(4),
    ),
    ("const c = 3;\nc <!-- trailing", json!(3)),
    // A carriage return ends the comment too (fuzzer-found).
    ("const P = 8, f = 2;\n-->\rP/\n\nf\n-->\r\n", json!(4)),
  ] {
    let r = h.exec(code);
    assert_eq!(r["value"], value, "{code:?}: {r}");
  }
  let r = h.exec("const d = 1;\n-->x\u{0}y\nd");
  assert_eq!(r["code"], "invalid_input");
  assert_eq!(
    r["error"],
    "SyntaxError: the program contains a NUL character; write \\0 instead (line 2, column 5)"
  );
}

#[test]
fn guest_code_during_error_construction_cannot_reenter_a_locked_bridge() {
  let mut h = Harness::new(enabled());
  // QuickJS coerces Error.stackTraceLimit and calls Error.prepareStackTrace while it builds the
  // stack of every error, including those thrown from inside bridge functions. A guest hook
  // that calls back into the bridge there used to deadlock the worker on the host lock.
  let r = h.exec(
    "let inside = 0;\n\
     Error.stackTraceLimit = { valueOf() { inside++; tools.read_file({}); return 10 } };\n\
     Error.prepareStackTrace = () => { inside++; tools.read_file({}); return 'hijacked' };\n\
     const seen = [];\n\
     try { await tools.call('nope') } catch (e) { seen.push(e.message, e.stack === 'hijacked') }\n\
     const ids = [];\n\
     try { for (;;) ids.push(setTimeout(() => {}, 1e6)) } catch (e) { seen.push(e.message) }\n\
     ids.forEach(clearTimeout);\n\
     [seen, typeof Error.stackTraceLimit, inside]",
  );
  assert_eq!(r["status"], "completed", "{r}");
  assert_eq!(
    r["value"],
    json!([
      [
        "Unknown tool id: nope",
        false,
        "Too many pending timers: at most 1000 may be scheduled at once."
      ],
      "number",
      1
    ]),
    "{r}"
  );
}

#[test]
fn a_slice_stuck_in_native_code_fails_timeout_and_its_worker_is_replaced() {
  use code_mode_engine::testing::{Fault, arm};
  let mut h = Harness::for_run("stuck-run", json!({ "enabled": true, "timeoutMs": 200 }));
  // Stands in for a QuickJS builtin looping natively: the interrupt handler is never polled.
  arm(
    Fault::StallSlice(Duration::from_secs(6)),
    Some("stuck-run".into()),
  );
  let started = Instant::now();
  let r = h.exec("text('before'); 1");
  assert_eq!(r["status"], "failed", "{r}");
  assert_eq!(r["code"], "timeout", "{r}");
  assert!(
    started.elapsed() < Duration::from_secs(5),
    "the leg ended with its stuck slice: {:?}",
    started.elapsed()
  );
  // The pool got a replacement worker: cells keep running while the stuck thread sleeps.
  let workers = code_mode_engine::worker_count();
  let results: Vec<Value> = (0..4).map(|n| h.exec(&format!("{n} * 2"))).collect();
  for (n, r) in results.iter().enumerate() {
    assert_eq!(r["value"], n * 2, "{r}");
  }
  assert_eq!(code_mode_engine::worker_count(), workers);
}

#[test]
fn injected_panics_fail_internal_error_and_the_runtime_carries_on() {
  use code_mode_engine::testing::{Fault, arm};
  let mut h = Harness::for_run("panic-run", enabled());
  arm(Fault::PanicSlice, Some("panic-run".into()));
  let r = h.exec("1");
  assert_eq!(r["code"], "internal_error", "{r}");
  assert_eq!(
    r["error"], "code mode runtime failed: test fault: panic injected in a VM slice",
    "{r}"
  );
  arm(Fault::PanicBridge, Some("panic-run".into()));
  let r = h.exec("text('a'); await tools.read_file({}); 'never'");
  assert_eq!(r["code"], "internal_error", "{r}");
  assert!(
    r["error"]
      .as_str()
      .unwrap()
      .contains("panic injected in a bridge call"),
    "{r}"
  );
  assert_eq!(h.exec("'still alive'")["value"], "still alive");
}

#[test]
fn natively_looping_builtins_stop_at_the_deadline_on_huge_lengths() {
  // These loop natively over a guest-chosen length; they poll the deadline (vendor patches
  // 0009 and 0010) instead of refusing long lengths, which JavaScript does not allow.
  let mut h = Harness::new(json!({ "enabled": true, "timeoutMs": 100 }));
  let huge = "const huge = { length: 2 ** 40 }; const spread = { length: 2 ** 40, [Symbol.isConcatSpreadable]: true };";
  for attempt in [
    "Array.prototype.join.call(huge)",
    "String(new Array(2 ** 32 - 1))",
    "Array.prototype.reverse.call(huge)",
    "Array.prototype.sort.call(huge)",
    "Array.prototype.splice.call(huge, 0, 1)",
    "Array.prototype.shift.call(huge)",
    "Array.prototype.unshift.call(huge, 1)",
    "Array.prototype.copyWithin.call(huge, 1, 0)",
    "new Array(2 ** 32 - 1).slice(1)",
    "[].concat(spread)",
    "[new Array(2 ** 32 - 1)].flat()",
    "[1].flatMap(() => new Array(2 ** 32 - 1))",
    "JSON.stringify({}, new Array(2 ** 32 - 1))",
    "String.raw({ raw: huge })",
    "Array.prototype.toLocaleString.call(huge)",
    "Array(1e5).fill('x'.repeat(1e6)).sort()",
  ] {
    let started = Instant::now();
    let r = h.exec(&format!("{huge}\n{attempt}"));
    assert_eq!(r["code"], "timeout", "{attempt}: {r}");
    // Well before the watchdog's second past the deadline: the loop itself saw it.
    assert!(started.elapsed() < Duration::from_secs(5), "{attempt}");
  }
  let r = h.exec("[[[1, [2]]].flat(2), [3, 1, 2].sort().join(), Array.prototype.join.name]");
  assert_eq!(r["value"], json!([[1, 2], "1,2,3", "join"]), "{r}");
}

#[test]
fn a_yield_flood_is_one_pending_entry() {
  let mut h = Harness::new(enabled());
  let r = h.exec(
    "let resumed = 0;\n\
     const all = [];\n\
     for (let i = 0; i < 5000; i++) all.push(yield_control('x').then(() => resumed++));\n\
     await yield_control('last');\n\
     await Promise.all(all);\n\
     [resumed, all[0] !== all[1]]",
  );
  assert_eq!(r["status"], "waiting", "{r}");
  assert_eq!(r["pendingToolCalls"].as_array().unwrap().len(), 1, "{r}");
  let again = h.wait(r["runId"].as_str().unwrap(), &|_| None);
  assert_eq!(again["value"], json!([5000, true]), "{again}");
  // A later yield in the resumed leg gets a fresh entry.
  let r = h.exec("await yield_control(); await yield_control(); 'twice'");
  let again = h.wait(r["runId"].as_str().unwrap(), &|_| None);
  assert_eq!(again["status"], "waiting", "{again}");
  let last = h.wait(again["runId"].as_str().unwrap(), &|_| None);
  assert_eq!(last["value"], "twice", "{last}");
}

#[test]
fn lone_surrogates_cross_as_replacement_characters() {
  let mut h = Harness::new(enabled());
  let r = h.exec(
    "text('a\\ud800b'); console.log('\\udc00'); Promise.reject('\\ud800');\n\
     const errors = [];\n\
     for (const f of [() => tools.describe('\\ud800'), () => tools.call('\\ud800'), () => tools.search('\\ud800')]) {\n\
       try { await f() } catch (e) { errors.push(e.message) }\n\
     }\n\
     errors",
  );
  assert_eq!(r["status"], "completed", "{r}");
  assert_eq!(
    r["value"],
    json!(["Unknown tool id: \u{fffd}", "Unknown tool id: \u{fffd}"]),
    "{r}"
  );
  assert_eq!(
    r["output"],
    json!([
      { "type": "text", "text": "a\u{fffd}b" },
      { "type": "text", "text": "\u{fffd}" },
      { "type": "text", "text": "Unhandled promise rejection: \u{fffd}" }
    ])
  );
  let r = h.exec("throw new Error('bad \\ud800 input')");
  assert_eq!(
    r["error"], "Error: bad \u{fffd} input (line 1, column 11)",
    "{r}"
  );
}

#[test]
fn a_call_input_can_never_forge_another_call_in_its_batch() {
  use code_mode_catalog::calls::{NestedCall, Via, finish_batch, write_call};
  let h = Harness::new(enabled());
  let run = h.run.clone();
  let entry = run.catalog.guest_entry("openclaw:core:read_file").unwrap();
  let call = |input_json| NestedCall {
    call: 3,
    entry,
    input_json,
    parent_tool_call_id: None,
    via: Via::Catalog,
  };
  // Input text as a broken bridge would splice it: it would end its call and start another
  // in the batch. Refused, and nothing is written.
  for spliced in [r#"{"path":"a"},0,4,0,{"path":"/"}"#, r#"{"path":"a"}]"#, ""] {
    let mut batch = Vec::new();
    assert_eq!(
      write_call(call(spliced), &mut batch),
      Err("tool input must be JSON-serialisable")
    );
    assert!(batch.is_empty());
  }
  // Well-formed input with keys of its own: they stay inside the input.
  let mut batch = Vec::new();
  write_call(
    call(r#"{"path":"a","name":"rm_rf","id":"openclaw:core:rm_rf","runId":"run-2","call":99}"#),
    &mut batch,
  )
  .unwrap();
  let payload = finish_batch(batch);
  let batch = expand_batch(&run, 7, &payload);
  assert_eq!(batch.len(), 1, "{payload}");
  let call = &batch[0];
  assert_eq!(
    (
      &call["name"],
      &call["id"],
      &call["runId"],
      &call["cell"],
      &call["call"]
    ),
    (
      &json!("read_file"),
      &json!("openclaw:core:read_file"),
      &json!("run-1"),
      &json!(7),
      &json!(3)
    ),
    "{payload}"
  );
  assert_eq!(call["input"]["name"], "rm_rf", "{payload}");
}

#[test]
fn calls_started_together_reach_the_executor_in_batches() {
  let mut h = Harness::new(json!({ "enabled": true, "maxPendingToolCalls": 128 }));
  let r = h.exec(
    "const all = await Promise.all(Array.from({ length: 70 }, (_, n) => tools.read_file({ n })));\n\
     all.map((r) => r.echo.n).join()",
  );
  let expected: Vec<String> = (0..70).map(|n| n.to_string()).collect();
  assert_eq!(r["value"], expected.join(","), "{r}");
  assert_eq!(h.calls.len(), 70);
  // The first goes alone (nothing else in flight), the rest at most 32 to a message, sooner
  // if the oldest has waited 100 µs (a debug build is slow enough for that).
  assert!(h.batches >= 3 && h.batches < 35, "{} batches", h.batches);
  // Nested ids: `cm_<nonce>_<cell>_<call>`, calls numbered from 1 in each cell.
  let ids: Vec<&str> = h
    .calls
    .iter()
    .map(|c| c["toolCallId"].as_str().unwrap())
    .collect();
  let cell = h.calls[0]["cell"].as_u64().unwrap();
  for (n, id) in ids.iter().enumerate() {
    let parts: Vec<&str> = id.split('_').collect();
    assert_eq!(parts.len(), 4, "{id}");
    assert_eq!((parts[0], parts[1].len()), ("cm", 8), "{id}");
    assert_eq!(parts[2], cell.to_string(), "{id}");
    assert_eq!(parts[3], (n + 1).to_string(), "{id}");
  }
  // A lone call each time: sequential awaits are never held back.
  let mut h = Harness::new(enabled());
  h.exec("for (let i = 0; i < 3; i++) await tools.read_file({ i })");
  assert_eq!((h.calls.len(), h.batches), (3, 3));
}

#[test]
fn a_call_result_settles_its_promise_with_the_value_or_an_error() {
  let mut h = Harness::new(enabled());
  let r = h.exec_with(
    "const out = [];\n\
     for (const n of [1, 2, 3]) {\n\
       try { out.push(await tools.read_file({ n })) }\n\
       catch (e) { out.push([e instanceof Error, e.name, e.message, typeof e.stack]) }\n\
     }\n\
     out",
    &|call| match call["input"]["n"].as_u64() {
      Some(1) => Some((true, r#"{"text":"a","list":[1,null]}"#.into())),
      Some(2) => Some((true, "{not json".into())),
      _ => Some((false, "policy denied read_file".into())),
    },
  );
  assert_eq!(
    r["value"],
    json!([
      { "text": "a", "list": [1, null] },
      [true, "Error", "tool result is not valid JSON", "string"],
      [true, "Error", "policy denied read_file", "string"]
    ]),
    "{r}"
  );
}

#[test]
fn a_killed_cell_starts_no_more_tool_calls() {
  let mut h = Harness::new(json!({ "enabled": true, "memoryLimitBytes": 4194304 }));
  // The allocation failure is catchable until the next interrupt poll; the catch block must
  // not reach the gateway.
  let r = h.exec(
    "try { const a = []; for (;;) a.push(new Array(1e5).fill(0)) }\n\
     catch (e) { for (let i = 0; i < 3; i++) { try { await tools.read_file({ after: 'kill' }) } catch (e) {} } }",
  );
  assert_eq!(r["code"], "memory_limit_exceeded", "{r}");
  assert!(h.calls.is_empty(), "{:?}", h.calls);
}

#[test]
fn a_slow_typescript_parse_times_out() {
  // Found by `cargo fuzz run typescript`: `<` after an identifier makes swc's TypeScript parser
  // try type arguments and backtrack, exponentially in the nesting. Parsing is cut at the
  // cell's CPU deadline.
  let mut h = Harness::new(json!({ "enabled": true, "timeoutMs": 300 }));
  let code = "i< [i<< { [i<< {[ i < {[ i!<{[[{[[ i\u{1c}< {[ i < { [i<< {[ i < {[i!<{[[{[[ \
              i\u{1c}< {[ i < { [i<< {[ i < {[ i <{[[{[[ i <  i <{[[{[[ i < {[ i <{a";
  let started = std::time::Instant::now();
  let input = Field::from_json(
    &json!({ "code": code, "language": "typescript" }),
    EXEC_KEYS,
  );
  let r = h.leg(|run, leg| run.exec(&input, start(leg, "tc")), &|_| None);
  assert_eq!(r["code"], "timeout", "{r}");
  assert!(started.elapsed() < std::time::Duration::from_secs(20));
  assert_eq!(h.exec("1 + 1")["value"], 2);
}

/// `valgrind --tool=callgrind <test binary> exec_loop --ignored`: where a trivial exec's CPU
/// goes, VM lifecycle included (the warm pool builds and frees one VM per exec).
#[test]
#[ignore = "profiling aid"]
fn exec_loop() {
  let mut h = Harness::new(enabled());
  for _ in 0..1000 {
    h.exec("1 + 1");
  }
}

/// `valgrind --tool=callgrind <test binary> parallel_calls_loop --ignored`: the Rust and QuickJS
/// side of nested calls (the channel port answers them at once).
#[test]
#[ignore = "profiling aid"]
fn parallel_calls_loop() {
  let mut h = Harness::new(json!({ "enabled": true, "maxPendingToolCalls": 128 }));
  // One cell, 40 rounds of 100: per-call cost dominates the VM's start and teardown.
  let r = h.exec(
    "const t0 = performance.now();\nlet n = 0;\nfor (let r = 0; r < 40; r++) n += (await Promise.all(Array.from({ length: 100 }, (_, i) => tools.read_file({ n: i })))).length;\nn === 4000 ? (performance.now() - t0) * 1000 / n : -1",
  );
  let per_call = r["value"].as_f64().unwrap_or(-1.0);
  assert!(per_call > 0.0, "{r}");
  eprintln!("{per_call:.2} µs per call");
}

/// A sandbox process is where hostile code runs: whatever it reports counts only for cells the
/// addon placed in it, for the run driving them. Reports from another process, or naming
/// another run, start no calls and end no leg.
#[test]
fn reports_count_only_for_cells_the_addon_placed_in_that_process() {
  use code_mode_protocol::leg::{Ended, LegEnd, LegTag};
  use code_mode_protocol::wire::Counts;
  let mut h = Harness::new(json!({ "enabled": true, "timeoutMs": 10_000 }));
  let input = Field::from_json(
    &json!({ "code": "await tools.slow({}); 'done'" }),
    EXEC_KEYS,
  );
  h.next_leg += 1;
  let leg = h.next_leg;
  assert!(h.run.exec(&input, start(leg, "tc-exec")).is_none());
  let (cell, batch) = loop {
    let message = h
      .messages
      .recv_timeout(Duration::from_secs(20))
      .expect("the call");
    if let Message::Calls { cell, payload } = message {
      break (cell, payload);
    }
  };

  let call = expand_batch(&h.run, cell, &batch)[0]["call"]
    .as_u64()
    .unwrap() as u32;
  let forged = |value: &str| Ended {
    cell,
    leg: Some(LegTag {
      id: leg,
      caller_id: None,
    }),
    end: Some(LegEnd::Completed {
      value: value.into(),
    }),
    dropped: None,
    token: None,
    output: Vec::new(),
  };
  let stranger = Process::new(
    9_999,
    0,
    Arc::new(MemoryOutbox(parking_lot::Mutex::new(None))),
    None,
    0,
  );
  crate::run::on_calls(&stranger, h.run.id, cell, batch.clone());
  crate::run::on_ended(&stranger, h.run.id, forged("\"forged\""), Counts::default());
  let owner = crate::run::live_process(cell).expect("the cell's process");
  crate::run::on_calls(&owner, h.run.id + 1_000, cell, batch.clone());
  crate::run::on_ended(
    &owner,
    h.run.id + 1_000,
    forged("\"forged\""),
    Counts::default(),
  );
  assert!(
    h.messages.recv_timeout(Duration::from_millis(300)).is_err(),
    "a forged report reached the run"
  );
  // The cell's own process still drives it to its real end.
  h.run.settle(cell, call, true, Some("1".into()));
  let result = loop {
    match h
      .messages
      .recv_timeout(Duration::from_secs(20))
      .expect("the result")
    {
      Message::LegDone { leg: done, result } if done == leg => break result,
      _ => {}
    }
  };
  let result: Value = serde_json::from_str(&result).unwrap();
  assert_eq!(result["value"], "done", "{result}");
}

/// Every function the addon exports catches a panic (`catch_unwind`): a panic that unwinds
/// into Node aborts the gateway. Checked over the sources, so a new export cannot miss it.
#[test]
fn every_exported_function_catches_panics() {
  fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
      let path = entry.path();
      if path.is_dir() {
        sources(&path, out);
      } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path);
      }
    }
  }
  let mut files = Vec::new();
  sources(
    &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    &mut files,
  );
  let mut missing = Vec::new();
  let mut checked = 0;
  for file in files {
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for (at, line) in lines.iter().enumerate() {
      if !line.starts_with("#[napi") {
        continue;
      }
      // The attribute (it may span lines), then the item it is on.
      let mut attribute = line.to_string();
      let mut next = at + 1;
      while !attribute.ends_with(")]") && !attribute.ends_with(']') && next < lines.len() {
        attribute.push_str(lines[next]);
        next += 1;
      }
      let item = lines[next..]
        .iter()
        .find(|l| !l.starts_with("#[") && !l.starts_with("///") && !l.is_empty());
      if item.is_some_and(|item| item.starts_with("pub fn ") || item.starts_with("fn ")) {
        checked += 1;
        if !attribute.contains("catch_unwind") {
          missing.push(format!("{}:{}", file.display(), at + 1));
        }
      }
    }
  }
  assert!(
    checked > 20,
    "the check found only {checked} exported functions"
  );
  assert!(
    missing.is_empty(),
    "exports without catch_unwind: {missing:?}"
  );
}
