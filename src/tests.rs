//! End-to-end tests of the runtime without Node: a channel stands in for the JS layer, and the
//! sandbox runs in the test process (`in_process`), behind the same wire format as the real
//! one. The executable's own start-up and lock-down are the vitest suites' to test.
//!
//! This file is the harness; the tests are in its submodules, by topic: `programs` (what a
//! cell's code evaluates to), `calls` (nested tool calls, waiting and resuming), `limits` (limits
//! and faults) and `boundary` (the trust boundary).

mod boundary;
mod calls;
mod limits;
mod programs;

use crate::input::Field;
use crate::port::Port;
use crate::protocol::Message;
use crate::run::{CatalogHandle, EXEC_KEYS, LegStart, Run, RunOptions, Scope, WAIT_KEYS};
use crate::sandbox::process::{Outbox, Process};
use code_mode_protocol::wire::{self, GuestKind, Report};
use crossbeam_channel::{Receiver, Sender, unbounded};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

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
  let process = Process::new(id, 0, Arc::new(outbox), None, None, now_ms);
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
        Message::AbortCell { .. } | Message::Floating { .. } => {}
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
