//! A cell's limits and the runtime's faults: timeouts (natively looping builtins, a slow
//! TypeScript parse, a slice stuck in native code), memory and output caps, injected panics.
//! Each ends the cell with a failed result and leaves the runtime serving the next one.

use super::{Harness, enabled, start};
use crate::input::Field;
use crate::run::EXEC_KEYS;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

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
  // Each item costs its 50 bytes and its 26-byte place in the output ({"type":"text","text":""}
  // and a comma): 13 whole items, and 10 bytes of a 14th fill the cap.
  assert_eq!(kept, 13 * 50 + 10);
  let json = serde_json::to_string(&r["output"]).unwrap();
  assert!(
    json.len() <= 1024 + 2,
    "{} bytes, the array's brackets aside",
    json.len()
  );
  let r =
    h.exec("function f() { return f() }\ntry { f() } catch (e) { return e instanceof RangeError }");
  assert_eq!(r["value"], true, "{r}");
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
fn an_aborted_slice_stuck_in_native_code_ends_aborted_soon_after_the_abort() {
  use code_mode_engine::testing::{Fault, arm};
  let mut h = Harness::for_run(
    "aborted-stuck-run",
    json!({ "enabled": true, "timeoutMs": 6000 }),
  );
  // A native loop never sees the abort: the watchdog gives its slice up soon after the kill
  // (crates/engine/src/watchdog.rs), not 6 s on at its deadline.
  arm(
    Fault::StallSlice(Duration::from_secs(7)),
    Some("aborted-stuck-run".into()),
  );
  let run = h.run.clone();
  let aborter = std::thread::spawn(move || {
    std::thread::sleep(Duration::from_millis(300));
    run.abort();
    Instant::now()
  });
  let r = h.exec("1");
  let ended = Instant::now();
  let aborted_at = aborter.join().unwrap();
  assert_eq!(r["status"], "failed", "{r}");
  assert_eq!(r["code"], "aborted", "{r}");
  assert!(
    ended.saturating_duration_since(aborted_at) < Duration::from_secs(4),
    "the aborted leg ended {:?} after its abort",
    ended.saturating_duration_since(aborted_at)
  );
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
