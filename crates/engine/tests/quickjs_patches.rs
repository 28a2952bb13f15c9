//! The vendored QuickJS patches (vendor/patches/rquickjs-sys/) in the engine's own VMs: each
//! patched builtin gives the answer the specification gives, and each loop patches 0009 and
//! 0010 made poll the interrupt handler does poll it, and stops cleanly when told to at every
//! one of those polls. `tools/ci/quickjs-asan.sh` runs these tests with QuickJS compiled with
//! AddressSanitizer and the VMs on the C library's malloc (the `sanitize` feature), so a leak,
//! double free or stray access on any of those paths fails CI.
#![allow(
  clippy::expect_used,
  reason = "test helpers: a panic is the test failing"
)]

use code_mode_engine::bare::BareVm;
use code_mode_engine::limits::{Kill, Signals, VmAllocator};
use rquickjs::{Coerced, Context, Ctx, Runtime};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What one evaluation came to, and how many times it consulted the interrupt handler.
struct Outcome {
  /// The completion value as a string, or the message of what was thrown.
  result: Result<String, String>,
  polls: u32,
}

/// The message of the exception pending in `ctx`.
fn thrown(ctx: &Ctx<'_>) -> String {
  let error = ctx.catch();
  match error.as_exception().and_then(|e| e.message()) {
    Some(message) => message,
    None => format!("{error:?}"),
  }
}

/// Evaluates `code` in a fresh VM with the engine's allocator and a 64 MiB cap, whose interrupt
/// handler answers "stop" from its `stop_at`-th call on (never, for `None`). The VM is freed
/// before this returns.
fn evaluate(code: &str, stop_at: Option<u32>) -> Outcome {
  let rt = Runtime::new_with_alloc(VmAllocator::new(Signals::new())).expect("a runtime");
  rt.set_memory_limit(64 << 20);
  let polls = Arc::new(AtomicU32::new(0));
  let counted = polls.clone();
  rt.set_interrupt_handler(Some(Box::new(move || {
    let n = counted.fetch_add(1, Ordering::Relaxed) + 1;
    stop_at.is_some_and(|at| n >= at)
  })));
  let context = Context::full(&rt).expect("a context");
  let result = context.with(|ctx| match ctx.eval::<Coerced<String>, _>(code) {
    Ok(Coerced(value)) => Ok(value),
    Err(rquickjs::Error::Exception) => Err(thrown(&ctx)),
    Err(other) => Err(other.to_string()),
  });
  drop(context);
  drop(rt);
  Outcome {
    result,
    polls: polls.load(Ordering::Relaxed),
  }
}

/// `code` gives `expected`, consulting the interrupt handler at least `min_polls` times (QuickJS
/// consults it once per 10,000 polls: unpatched, these loops never poll); then, stopped at
/// each of those consultations in turn, it fails with the interrupt.
fn sweep(code: &str, expected: &str, min_polls: u32) {
  let full = evaluate(code, None);
  assert_eq!(full.result.as_deref(), Ok(expected), "{code}");
  assert!(
    full.polls >= min_polls,
    "{code}: the interrupt handler was consulted {} times, expected at least {min_polls}",
    full.polls
  );
  for at in 1..=full.polls {
    let stopped = evaluate(code, Some(at));
    match &stopped.result {
      Err(message) if message.contains("interrupted") => {}
      other => panic!("{code}: stopped at consultation {at}: {other:?}"),
    }
  }
}

/// `code` gives `expected`.
fn gives(code: &str, expected: &str) {
  assert_eq!(
    evaluate(code, None).result.as_deref(),
    Ok(expected),
    "{code}"
  );
}

// Patch 0009: native loops that outran the deadline.

#[test]
fn fill_from_from_entries_and_concat_poll_per_element() {
  sweep(
    "Array.prototype.fill.call({ length: 50000 }, 7)[49999]",
    "7",
    5,
  );
  sweep("Array.from({ length: 50000 }).length", "50000", 5);
  sweep("Array.from(new Array(50000).keys()).length", "50000", 5);
  sweep("Object.fromEntries(Array(50000).fill(['k', 1])).k", "1", 10);
  sweep(
    "[].concat({ length: 50000, [Symbol.isConcatSpreadable]: true }).length",
    "50000",
    5,
  );
}

#[test]
fn string_searches_poll_weighted_by_the_needle() {
  let hay = "const hay = 'a'.repeat(12000), needle = 'a'.repeat(2000) + 'b';";
  sweep(&format!("{hay} hay.indexOf(needle)"), "-1", 2);
  sweep(&format!("{hay} hay.lastIndexOf(needle)"), "-1", 2);
  sweep(&format!("{hay} hay.includes(needle)"), "false", 2);
  sweep(&format!("{hay} hay.split(needle).length"), "1", 2);
  sweep(&format!("{hay} hay.replace(needle, '').length"), "12000", 2);
  sweep(
    &format!("{hay} hay.replaceAll(needle, '').length"),
    "12000",
    2,
  );
  // A match is still found, at the same place.
  gives(
    "'xxab'.repeat(100).indexOf('ab', 7) + ',' + 'abab'.lastIndexOf('ab') + ',' + 'a-b-c'.split('-').join()",
    "10,2,a,b,c",
  );
}

#[test]
fn declarations_poll_weighted_by_the_variables_so_far() {
  sweep(
    "new Function('let ' + Array.from({ length: 8000 }, (_, i) => 'v' + i).join(', ') + '; return 1')()",
    "1",
    4,
  );
}

#[test]
fn a_large_unicode_character_class_polls_while_it_is_built() {
  let class = "'[' + Array.from({ length: 4000 }, (_, i) => String.fromCodePoint(0x10000 + 2 * i)).join('') + ']'";
  sweep(
    &format!(
      "new RegExp({class}, 'u').test('\\u{{10000}}') + ',' + new RegExp({class}, 'u').test('\\u{{10001}}')"
    ),
    "true,false",
    8,
  );
}

#[test]
fn long_runs_of_combining_marks_sort_by_class_as_short_ones_do() {
  // U+0316 (class 220) sorts before U+0301 (class 230); runs over 32 marks sort by counting.
  for n in [3, 16, 17, 100, 5000] {
    gives(
      &format!(
        "const s = 'a' + '\\u0301\\u0316'.repeat({n}) + 'b\\u0301\\u0316';
         [s.normalize('NFD') === 'a' + '\\u0316'.repeat({n}) + '\\u0301'.repeat({n}) + 'b\\u0316\\u0301',
          s.normalize('NFKD') === s.normalize('NFD'),
          s.localeCompare('a' + '\\u0316\\u0301'.repeat({n}) + 'b\\u0316\\u0301')].join()"
      ),
      "true,true,0",
    );
  }
}

// Patch 0010: the builtins that loop over an array-like's length.

#[test]
fn moves_and_copies_over_array_likes_poll_per_element() {
  sweep(
    "Array.prototype.copyWithin.call({ length: 50000, 0: 'x' }, 1, 0)[1]",
    "x",
    5,
  );
  sweep(
    "const o = { length: 50000, 1: 'y' }; Array.prototype.shift.call(o); o[0] + o.length",
    "y49999",
    5,
  );
  sweep(
    "const o = { length: 50000, 0: 'z' }; Array.prototype.unshift.call(o, 1); o[1] + o.length",
    "z50001",
    5,
  );
  sweep(
    "const o = { length: 50000, 49999: 'w' }; Array.prototype.splice.call(o, 0, 1); o[49998] + o.length",
    "w49999",
    5,
  );
  sweep(
    "const o = { length: 50000, 3: 'v' }; const out = Array.prototype.splice.call(o, 0, 50000); out[3] + out.length + o.length",
    "v500000",
    10,
  );
  sweep(
    "Array.prototype.slice.call({ length: 50000, 49999: 's' }, 0)[49999]",
    "s",
    5,
  );
  sweep(
    "const o = { length: 100000, 0: 'r' }; Array.prototype.reverse.call(o); o[99999] + (0 in o)",
    "rfalse",
    4,
  );
}

#[test]
fn join_flat_string_raw_and_replacer_lists_poll_per_element() {
  sweep(
    "Array.prototype.join.call({ length: 50000 }).length",
    "49999",
    5,
  );
  sweep(
    "Array.prototype.toLocaleString.call({ length: 50000 }).length",
    "49999",
    5,
  );
  sweep("[new Array(50000)].flat().length", "0", 5);
  sweep("[1].flatMap(() => new Array(50000)).length", "0", 5);
  sweep("String.raw({ raw: { length: 50000 } }).length", "450000", 5);
  sweep("JSON.stringify({ a: 1 }, new Array(50000))", "{}", 5);
}

#[test]
fn sort_polls_while_collecting_comparing_and_writing_back() {
  sweep(
    "const o = { length: 50000, 7: 'b', 9: 'a' }; Array.prototype.sort.call(o); o[0] + o[1] + (2 in o) + o.length",
    "abfalse50000",
    10,
  );
  sweep("Array(50000).fill(undefined).sort().length", "50000", 15);
  // A native comparator runs no bytecode; long strings compare natively.
  sweep("Array(5000).fill(0).sort(Math.max).length", "5000", 10);
  sweep(
    "Array(1000).fill('x'.repeat(3000)).sort().length",
    "1000",
    2,
  );
  gives(
    "[3, 1, 2].sort().join() + ';' + ['b', 'a'].sort((x, y) => x < y ? -1 : 1).join()",
    "1,2,3;a,b",
  );
}

// The deadline and the memory cap through the engine's own interrupt handler ([`BareVm`]).

/// Evaluates `code` in a bare VM with the engine's handler: a CPU deadline `deadline` from now
/// and a memory cap. Returns what was thrown and why the VM was stopped.
fn bare(code: &str, memory_limit: usize, deadline: Option<Duration>) -> (String, Kill) {
  let vm = BareVm::new(memory_limit).expect("a bare VM");
  vm.signals
    .set_deadline(deadline.map(|d| Instant::now() + d));
  let thrown = vm.with(|ctx| match ctx.eval::<Coerced<String>, _>(code) {
    Ok(Coerced(value)) => panic!("{code}: completed with {value}"),
    Err(rquickjs::Error::Exception) => thrown(&ctx),
    Err(other) => other.to_string(),
  });
  let killed = vm.killed();
  (thrown, killed)
}

#[test]
fn a_loop_over_a_length_of_2_pow_53_ends_at_the_deadline() {
  let (message, killed) = bare(
    "Array.prototype.fill.call({ length: 2 ** 53 - 1 }, 0)",
    64 << 20,
    Some(Duration::from_millis(50)),
  );
  assert_eq!((message.as_str(), killed), ("interrupted", Kill::Timeout));
}

#[test]
fn a_join_whose_string_outgrew_the_cap_ends_at_the_next_poll() {
  // Patch 0003 makes the refusal terminal; patch 0010's poll ends the loop, which would
  // otherwise run on over 2^53 - 1 elements.
  let (message, killed) = bare(
    "Array.prototype.join.call({ length: 2 ** 53 - 1 }, 'x'.repeat(1 << 16))",
    16 << 20,
    None,
  );
  assert_eq!((message.as_str(), killed), ("interrupted", Kill::Memory));
}

// Patches 0004, 0005 and 0007: lazy intrinsics, accessor names, JSON.stringify's fast path.

#[test]
fn lazy_intrinsics_are_there_when_first_used() {
  gives(
    "[typeof Date, typeof Map, typeof WeakSet, typeof Uint8Array, typeof DataView, typeof DOMException].join()",
    "function,function,function,function,function,function",
  );
  gives("new Date(0).toISOString()", "1970-01-01T00:00:00.000Z");
  gives("new Map([[1, 2]]).get(1) + new Set([1, 1]).size", "3");
  gives(
    "new Uint8Array([1, 2, 300]).join() + new DataView(new ArrayBuffer(4)).byteLength",
    "1,2,444",
  );
  gives(
    "Object.getPrototypeOf(Uint8Array.prototype).toString === Array.prototype.toString",
    "true",
  );
  gives(
    "try { atob('*') } catch (e) { e instanceof DOMException && e.name }",
    "InvalidCharacterError",
  );
}

#[test]
fn accessor_names_are_get_and_set_prefixed() {
  gives(
    "[Object.getOwnPropertyDescriptor(Map.prototype, 'size').get.name,
      Object.getOwnPropertyDescriptor(Object.prototype, '__proto__').set.name,
      Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags').get.name].join()",
    "get size,set __proto__,get flags",
  );
}

#[test]
fn json_stringify_fast_path_matches_the_general_algorithm() {
  let values = [
    r#"({ a: 1, b: 'x"y\\z\u0001\ud800', c: [1, -0, 1e21, NaN, null, true, { d: {} }], e: undefined, f() {} })"#,
    "[[], [[]], {}, { '': '' }, 'é😀', 0.1, -1e-7]",
    "({ get g() { return 1 }, h: 2 })",
    "({ a: { toJSON() { return 'j' } } })",
    "Object.assign(Object.create({ toJSON() { return 'p' } }), { a: 1 })",
    "new Proxy({ a: 1 }, {})",
    "[1, , 3]",
    "({ 1: 'one', a: 'a', 0: 'zero' })",
    "Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false })",
    "({ [Symbol('s')]: 1, t: new Date(0), u: new Map([[1, 2]]), v: /r/g })",
    "Object.assign(Object.create(null), { a: [1, 2, { b: 'c' }] })",
  ];
  for value in values {
    gives(
      &format!(
        "const v = {value}; JSON.stringify(v) === JSON.stringify(v, null) && JSON.stringify(v)"
      ),
      &evaluate(&format!("JSON.stringify({value}, null)"), None)
        .result
        .expect(value),
    );
  }
  // What the general algorithm throws, the fast path throws.
  for value in [
    "(() => { const a = []; a.push(a); return a })()",
    "({ big: 1n })",
  ] {
    let thrown = |code: String| evaluate(&code, None).result.expect_err(value);
    assert_eq!(
      thrown(format!("JSON.stringify({value})")),
      thrown(format!("JSON.stringify({value}, null)")),
    );
  }
}

#[test]
fn a_runtime_frees_whatever_its_cells_left_behind() {
  // Patch 0006: the runtime frees every object as one cycle, reachable or not.
  gives(
    "globalThis.keep = []; for (let i = 0; i < 1000; i++) { const a = {}, b = { a }; a.b = b; keep.push(a, new Map([[a, b]]), Promise.resolve(b)) } keep.length",
    "3000",
  );
}
