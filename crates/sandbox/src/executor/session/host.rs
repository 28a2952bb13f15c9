//! The host functions installed in every executor VM, as globals upstream's controller takes
//! and deletes: `__openclawHostRequest` (checked: method, id, argument size and shape, the
//! pending cap), `__openclawHostCancelRequest`, `__openclawHostObserveNetworkContent`; and the
//! rejection tracker. Separate from the leg loop (`session.rs`) because this is what the guest
//! calls, while a leg runs, with arguments the model wrote.

use super::{Bridge, Request};
use crate::engine::text;
use crate::executor::stack::normalize_stack;
use code_mode_protocol::executor;
use parking_lot::Mutex;
use rquickjs::{CatchResultExt, Coerced, Ctx, Function, Value};
use std::sync::Arc;

/// The bridge methods upstream's worker accepts.
const METHODS: &[&str] = &[
  "search",
  "describe",
  "callValue",
  "resultSave",
  "resultLoad",
  "resultDelete",
  "nodes",
  "yield",
  "namespace",
  "agentSpawn",
  "agentWait",
  "skillsList",
  "skillsRead",
  "sleep",
  "swarmNote",
];

/// A call stack passed to `__openclawHostRequest` is cut to this many characters, as upstream.
const MAX_CALL_STACK: usize = 8192;
/// One request's arguments, and all pending requests' arguments together, as what Node holds
/// once it parses them (`code_mode_protocol::parsed`, at least their JSON bytes): what crosses to
/// Node in one boundary stays far below V8's string limit, and its parse within a small factor of
/// these, whatever the guest sends.
const MAX_REQUEST_BYTES: usize = 16 << 20;
const MAX_PENDING_BYTES: usize = 64 << 20;

/// QuickJS reports a rejection with no handler (and a handler added later): the controller
/// keeps the set, as upstream's worker wires it.
pub(super) fn track_rejection<'js>(
  ctx: Ctx<'js>,
  promise: Value<'js>,
  reason: Value<'js>,
  handled: bool,
) {
  if let Ok(track) = ctx.globals().get::<_, Function>("__openclawTrackRejection") {
    let _ = track
      .call::<_, Value>((promise, reason, handled))
      .catch(&ctx);
  }
}

/// The three host functions, as globals the controller takes and deletes.
pub(super) fn install<'js>(ctx: &Ctx<'js>, bridge: &Arc<Mutex<Bridge>>) -> rquickjs::Result<()> {
  let globals = ctx.globals();
  let b = bridge.clone();
  globals.set(
    "__openclawHostRequest",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>,
            method: Coerced<String>,
            args: Coerced<String>,
            id: rquickjs::function::Opt<Value<'js>>,
            stack: rquickjs::function::Opt<Value<'js>>|
            -> rquickjs::Result<String> {
        host_request(&ctx, &b, method.0, args.0, id.0, stack.0)
      },
    )?,
  )?;
  let b = bridge.clone();
  globals.set(
    "__openclawHostCancelRequest",
    Function::new(ctx.clone(), move |id: Coerced<String>| {
      let mut bridge = b.lock();
      if let Some(at) = bridge.pending.iter().position(|r| r.id == id.0) {
        bridge.pending.remove(at);
        bridge.canceled.push(id.0);
      }
    })?,
  )?;
  let b = bridge.clone();
  globals.set(
    "__openclawHostObserveNetworkContent",
    Function::new(ctx.clone(), move || {
      b.lock().network_observed = true;
    })?,
  )?;
  Ok(())
}

fn host_request<'js>(
  ctx: &Ctx<'js>,
  bridge: &Mutex<Bridge>,
  method: String,
  args: String,
  id: Option<Value<'js>>,
  stack: Option<Value<'js>>,
) -> rquickjs::Result<String> {
  let throw = |message: &str| rquickjs::Exception::throw_message(ctx, message);
  let mut b = bridge.lock();
  if b.pending.len() >= b.max_pending {
    b.admission_failed = true;
    drop(b);
    return Err(throw("too many pending code mode tool calls"));
  }
  if !METHODS.contains(&method.as_str()) {
    drop(b);
    return Err(throw("unsupported code mode bridge method"));
  }
  let pending_cost: usize = b.pending.iter().map(|r| r.cost).sum();
  let cost = code_mode_protocol::parsed::parsed_bytes(&args);
  if cost > MAX_REQUEST_BYTES || pending_cost + cost > MAX_PENDING_BYTES {
    drop(b);
    return Err(throw(&format!(
      "code mode bridge arguments are too large ({} bytes of JSON, about {cost} once parsed; at most {MAX_REQUEST_BYTES} per call and {MAX_PENDING_BYTES} for all pending calls)",
      args.len()
    )));
  }
  // The controller's own `JSON.stringify` of an array, passed through as text: checked to be
  // exactly one JSON array, so no text can add fields to the outcome it is spliced into.
  if executor::json_array(&args).is_none() {
    drop(b);
    return Err(throw(
      "invalid code mode bridge arguments: expected an array",
    ));
  }
  let id = id
    .and_then(|v| v.as_string().and_then(|s| s.to_string().ok()))
    .unwrap_or_default();
  let number = id
    .strip_prefix("bridge:")
    .and_then(|rest| rest.strip_prefix(method.as_str()))
    .and_then(|rest| rest.strip_prefix(':'));
  let valid = number
    .is_some_and(|n| !n.is_empty() && !n.starts_with('0') && n.bytes().all(|c| c.is_ascii_digit()))
    && method.bytes().all(|c| c.is_ascii_alphabetic());
  if !valid {
    drop(b);
    return Err(throw("invalid code mode bridge id"));
  }
  if b.pending.iter().any(|r| r.id == id) {
    drop(b);
    return Err(throw("duplicate code mode bridge id"));
  }
  b.pending.push(Request {
    id,
    method,
    args,
    cost,
  });
  let location = b.location.clone();
  drop(b);
  let stack = stack
    .filter(Value::is_string)
    .and_then(|v| text::text(ctx, &v, MAX_CALL_STACK))
    .unwrap_or_default();
  Ok(normalize_stack(&stack, location.as_ref()).unwrap_or(stack))
}
