//! A cell's program and what comes back: the completion value, output, uncaught errors and
//! floating rejections, TypeScript, the parser's and the engine's corner cases (most found by
//! fuzzing), and the vendored QuickJS patches' builtins. Separate from the harness
//! (`src/tests.rs`) as the tests of what a model's code evaluates to.

use super::{Harness, enabled, start};
use crate::input::Field;
use crate::run::EXEC_KEYS;
use serde_json::{Value, json};

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
  let cases = include_str!("../../__test__/fixtures/json-stringify-cases.js");
  let r = h.exec(cases);
  assert_eq!(r["value"], "same", "{r}");
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
