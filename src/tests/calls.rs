//! Nested tool calls and suspension: the guest API's calls, their batches, queue and cap, how
//! a result settles its promise, and cells that wait on pending calls or yield and are resumed
//! by `wait`. Separate from the harness (`src/tests.rs`) as the tests of the gateway round trip.

use super::{Harness, enabled, expand_batch};
use serde_json::json;

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
