//! The trust boundary: what a hostile cell or sandbox process cannot do to the addon (forge
//! reports for another cell, re-enter a locked bridge) and what no export may do to Node
//! (unwind a panic into it). Separate so the checks of the security model read together.

use super::{Harness, MemoryOutbox, enabled, expand_batch, start};
use crate::input::Field;
use crate::protocol::Message;
use crate::run::EXEC_KEYS;
use crate::sandbox::process::Process;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

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
    floating: Vec::new(),
  };
  let stranger = Process::new(
    9_999,
    0,
    Arc::new(MemoryOutbox(parking_lot::Mutex::new(None))),
    None,
    None,
    0,
  );
  (crate::run::ROUTES.calls)(&stranger, h.run.id, cell, batch.clone());
  (crate::run::ROUTES.ended)(&stranger, h.run.id, forged("\"forged\""), Counts::default());
  let owner = crate::run::live_process(cell).expect("the cell's process");
  (crate::run::ROUTES.calls)(&owner, h.run.id + 1_000, cell, batch.clone());
  (crate::run::ROUTES.ended)(
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
