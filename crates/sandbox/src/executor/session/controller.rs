//! What a leg does in upstream's controller: starts the user program, settles results into it
//! through its global functions, takes its output, reads the cell's settled value, and turns a
//! thrown value into upstream's error text. Separate from the leg loop (`session.rs`) because it
//! is the code that reads guest values, each bounded as it is read.

use super::{Bridge, MAX_ERROR, MAX_RESULT_BYTES, Stop, too_large};
use crate::engine::bytecode;
use crate::engine::limits::{Kill, Signals};
use crate::engine::text;
use crate::executor::stack::{Location, USER_FILE, format_error};
use code_mode_protocol::executor;
use parking_lot::Mutex;
use rquickjs::object::Property;
use rquickjs::promise::PromiseState;
use rquickjs::{CatchResultExt, CaughtError, Ctx, Function, Object, Promise, Value, qjs};

const SOURCE_LOCATION_KEY: &str = "__openclawSourceLocation";
/// An uncaught error's stack is read up to this many characters (it is only searched for the
/// user's frames).
const MAX_STACK: usize = 64 << 10;

/// Calls the controller's global function `name` with no arguments.
pub(super) fn call<'js>(
  ctx: &Ctx<'js>,
  globals: &Object<'js>,
  name: &str,
  location: Option<&Location>,
) -> Result<Value<'js>, Stop> {
  let function: Function = globals.get(name).map_err(|_| Stop::Caught)?;
  function.call(()).catch(ctx).map_err(|e| stop(e, location))
}

/// An interrupt (deadline, memory, abort) surfaces as an exception too; `Session::failure`
/// reads the kill first, so the exception's text is used only when there was none.
pub(super) fn stop(error: CaughtError<'_>, location: Option<&Location>) -> Stop {
  let value = match error {
    CaughtError::Exception(e) => e.into_value(),
    CaughtError::Value(v) => v,
    CaughtError::Error(_) => return Stop::Caught,
  };
  let ctx = value.ctx().clone();
  let max = MAX_ERROR.with(|max| max.get());
  Stop::Fail("internal_error", error_text(&ctx, &value, location, max))
}

/// The first leg on a prepared VM: the source location global, then the program.
pub(super) fn start(
  ctx: &Ctx<'_>,
  source: &str,
  location: &str,
  bridge: &Mutex<Bridge>,
) -> Result<(), Stop> {
  let globals = ctx.globals();
  globals
    .prop(SOURCE_LOCATION_KEY, Property::from(location))
    .map_err(|_| Stop::Caught)?;
  // A sloppy async global script, as upstream's `evalCode(…, EvalFlags.ASYNC)`; through
  // `eval_script`, which takes a NUL character in the source as upstream does (rquickjs's eval
  // refuses one before QuickJS sees it).
  let flags = (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_ASYNC) as i32;
  bytecode::eval_script(ctx, source, USER_FILE, flags)
    .catch(ctx)
    .map_err(|e| stop(e, bridge.lock().location.as_ref()))?;
  Ok(())
}

/// Settles each `{id, ok, json}` into the guest through `__openclawSettleBridge`.
pub(super) fn settle(ctx: &Ctx<'_>, settled: &str, signals: &Signals) -> Result<(), Stop> {
  #[derive(serde::Deserialize)]
  struct Settled {
    id: String,
    ok: bool,
    json: String,
  }
  let list: Vec<Settled> = serde_json::from_str(settled).map_err(|e| {
    Stop::Fail(
      "invalid_input",
      format!("invalid code mode continuation: settledRequests: {e}"),
    )
  })?;
  let function: Function = ctx
    .globals()
    .get("__openclawSettleBridge")
    .map_err(|_| Stop::Caught)?;
  for request in list {
    // A throw here is the controller's (an unknown id); upstream carries on too.
    let _ = function
      .call::<_, Value>((request.id, request.ok, request.json))
      .catch(ctx);
    if signals.killed() != Kill::None {
      return Err(Stop::Killed);
    }
  }
  Ok(())
}

/// `__openclawTakeOutputJson()`: the output since the last take, as JSON text of an array.
pub(super) fn take_output(ctx: &Ctx<'_>, location: Option<&Location>) -> Result<String, Stop> {
  let value = call(ctx, &ctx.globals(), "__openclawTakeOutputJson", location)?;
  let text = value
    .as_string()
    .and_then(|s| s.to_string().ok())
    .unwrap_or_default();
  if text.len() > MAX_RESULT_BYTES {
    return Err(too_large("output", Some(text.len())));
  }
  // Upstream keeps an array and drops anything else (here: anything but exactly one array).
  Ok(if executor::json_array(&text).is_some() {
    text
  } else {
    "[]".into()
  })
}

/// The settled value of the cell (its JSON text), or the failure its rejection means.
pub(super) fn read_settled<'js>(
  ctx: &Ctx<'js>,
  bridge: &Mutex<Bridge>,
  promise: Option<&Promise<'js>>,
  value: &Value<'js>,
) -> Result<String, Stop> {
  let settled = match promise {
    Some(promise) => match promise.state() {
      PromiseState::Rejected => {
        let reason: Value = match promise.result::<Value>() {
          Some(Err(rquickjs::Error::Exception)) => ctx.catch(),
          Some(Ok(v)) => v,
          _ => Value::new_undefined(ctx.clone()),
        };
        let (location, max) = {
          let bridge = bridge.lock();
          (bridge.location.clone(), bridge.max_error)
        };
        if let Some(object) = reason.as_object()
          && reason.is_error()
        {
          let name = field(ctx, object, "name", 64).unwrap_or_default();
          let message = field(ctx, object, "message", 64).unwrap_or_default();
          if name == "ReferenceError"
            && ["require", "module", "process"]
              .iter()
              .any(|m| message == format!("{m} is not defined"))
          {
            return Err(Stop::Fail(
              "invalid_input",
              "code mode module access is disabled.".into(),
            ));
          }
        }
        return Err(Stop::Fail(
          "internal_error",
          error_text(ctx, &reason, location.as_ref(), max),
        ));
      }
      _ => promise
        .result::<Value>()
        .and_then(Result::ok)
        .unwrap_or_else(|| Value::new_undefined(ctx.clone())),
    },
    None => value.clone(),
  };
  // The controller's `__openclawRunCell` resolves with JSON text; anything else (a guest that
  // replaced `__openclawResult`) goes through `String(value)`, as upstream's `JSON.parse` sees it.
  if settled.is_undefined() {
    return Ok("undefined".into());
  }
  let text = text::text(ctx, &settled, MAX_RESULT_BYTES + 1).unwrap_or_else(|| UNREADABLE.into());
  // Sent as it is, beside the outcome (`code_mode_protocol::executor::LegAnswer`); read no
  // further than one past the cap.
  if text.len() > MAX_RESULT_BYTES {
    return Err(too_large("value", None));
  }
  Ok(text)
}

/// Property `key` of an error as text, at most `max` UTF-16 units: `None` when it is missing,
/// and upstream's `<null>` when reading it throws or it cannot be made text (a symbol).
fn field<'js>(ctx: &Ctx<'js>, object: &Object<'js>, key: &str, max: usize) -> Option<String> {
  let value: Value = match object.get(key).catch(ctx) {
    Ok(value) => value,
    Err(_) => return Some(UNREADABLE.into()),
  };
  if value.is_undefined() {
    return None;
  }
  Some(text::text(ctx, &value, max).unwrap_or_else(|| UNREADABLE.into()))
}

/// What upstream's QuickJS wrapper makes of a string it cannot read (`JS_ToCString` failed).
const UNREADABLE: &str = "<null>";

/// Upstream's text for a thrown value: `Name: message` and the user's frames for errors,
/// [`thrown_text`] otherwise; lone surrogates as U+FFFD, and at most `max` units of the guest's
/// own text.
fn error_text<'js>(
  ctx: &Ctx<'js>,
  value: &Value<'js>,
  location: Option<&Location>,
  max: usize,
) -> String {
  if let Some(object) = value.as_object()
    && value.is_error()
  {
    let name = field(ctx, object, "name", 1024).unwrap_or_else(|| "Error".into());
    let message = field(ctx, object, "message", max).unwrap_or_default();
    let stack = field(ctx, object, "stack", MAX_STACK).unwrap_or_default();
    return format_error(&name, &message, &stack, location);
  }
  thrown_text(ctx, value, max)
}

/// Upstream's text of a thrown value that is not an error: `String` of the copy its VM wrapper
/// makes of it on the host (`vm.dump`), which runs none of the guest's `toString`. A function
/// and an unregistered symbol copy as `undefined`; any other object but an array or a buffer
/// copies as a plain object of its own enumerable string keys, so a `Date`, a `Map`, a proxy or a
/// null-prototype object print `[object Object]`, and one with an own `toString` key (copied as
/// data) cannot be printed: the text is then the host's `TypeError`. Other primitives, arrays
/// and buffers print as `String` prints them.
fn thrown_text<'js>(ctx: &Ctx<'js>, value: &Value<'js>, max: usize) -> String {
  const UNPRINTABLE: &str = "Cannot convert object to primitive value";
  if value.is_function() {
    return "undefined".into();
  }
  // The copy of a BigInt is its low 64 bits, signed (`12345678901234567890n` prints
  // `-6101065172474983726`).
  if let Some(n) = value.as_big_int().and_then(|big| big.clone().to_i64().ok()) {
    return n.to_string();
  }
  if value.is_symbol() {
    let registered = ctx
      .globals()
      .get::<_, Object>("Symbol")
      .and_then(|symbol| symbol.get::<_, Function>("keyFor"))
      .and_then(|key_for| key_for.call::<_, Option<String>>((value.clone(),)))
      .catch(ctx)
      .ok()
      .flatten();
    return registered.map_or_else(|| "undefined".into(), |key| format!("Symbol({key})"));
  }
  // SAFETY: both read the class of a live value of `ctx`; neither takes a reference.
  let buffer = unsafe {
    qjs::JS_IsArrayBuffer(value.as_raw()) || qjs::JS_GetTypedArrayType(value.as_raw()) >= 0
  };
  if let Some(object) = value.as_object()
    && !value.is_array()
    && !buffer
  {
    // Names that cannot be read (a proxy's `ownKeys` trap threw) copy as an empty object.
    let own_to_string = object
      .keys::<String>()
      .map_while(Result::ok)
      .any(|key| key == "toString");
    let _ = ctx.catch();
    return if own_to_string {
      UNPRINTABLE
    } else {
      "[object Object]"
    }
    .into();
  }
  text::text(ctx, value, max).unwrap_or_else(|| "unprintable value".into())
}
