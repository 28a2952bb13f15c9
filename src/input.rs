//! Untrusted host input (exec/wait arguments, `tools.codeMode` values), read field by field.
//!
//! The gateway hands us `unknown`: these readers never recurse into nested objects, never
//! throw into JavaScript (a throwing getter reads as "missing", or for exec and wait inputs as
//! [`Field::Threw`]), and describe anything that is not plain data by its `typeof`, so
//! validation can name the problem.

use napi::{Env, JsValue, Unknown, ValueType, sys};
use std::ptr;

/// One value as validation sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
  /// Absent, `undefined`, or a getter that threw.
  Missing,
  Null,
  Bool(bool),
  Number(f64),
  String(String),
  /// An array of primitives (nested objects and arrays become `Other`).
  List(Vec<Field>),
  /// A plain object whose requested keys were read (see [`read_value`]).
  Object(Vec<(&'static str, Field)>),
  /// Anything else, by its `typeof` (`"function"`, `"symbol"`, `"bigint"`, `"object"`).
  Other(&'static str),
  /// A key whose getter or Proxy trap threw, with what it threw as text (read by
  /// [`read_input`] only; [`read_value`] reads such a key as `Missing`).
  Threw(String),
}

impl Field {
  /// `typeof`-style name used in validation messages.
  pub fn type_name(&self) -> &'static str {
    match self {
      Field::Missing => "undefined",
      Field::Null => "null",
      Field::Bool(_) => "boolean",
      Field::Number(_) => "number",
      Field::String(_) => "string",
      Field::List(_) => "array",
      Field::Object(_) => "object",
      Field::Other(name) => name,
      Field::Threw(_) => "unreadable",
    }
  }

  /// The field named `key` of an object (`Missing` for anything else).
  pub fn get(&self, key: &str) -> &Field {
    match self {
      Field::Object(fields) => fields
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, value)| value)
        .unwrap_or(&Field::Missing),
      _ => &Field::Missing,
    }
  }

  /// Builds a `Field` from JSON (Rust tests stand in for JavaScript values with it).
  #[cfg(test)]
  pub fn from_json(value: &serde_json::Value, keys: &'static [&'static str]) -> Field {
    use serde_json::Value;
    match value {
      Value::Null => Field::Null,
      Value::Bool(b) => Field::Bool(*b),
      Value::Number(n) => Field::Number(n.as_f64().unwrap_or(f64::NAN)),
      Value::String(s) => Field::String(s.clone()),
      Value::Array(items) => Field::List(
        items
          .iter()
          .map(|item| match item {
            Value::Array(_) => Field::Other("object"),
            Value::Object(_) => Field::Other("object"),
            other => Field::from_json(other, &[]),
          })
          .collect(),
      ),
      Value::Object(map) => Field::Object(
        keys
          .iter()
          .map(|key| {
            let field = match map.get(*key) {
              None => Field::Missing,
              Some(Value::Object(_)) => Field::Other("object"),
              Some(other) => Field::from_json(other, &[]),
            };
            (*key, field)
          })
          .collect(),
      ),
    }
  }
}

/// Reads a JS value: for a plain object only its own `keys` (their values may be arrays of
/// primitives), never deeper.
pub fn read_value(env: &Env, value: &Unknown, keys: &'static [&'static str]) -> Field {
  read(env.raw(), value.raw(), keys, 0, false)
}

/// Reads an exec or wait input as [`read_value`] does, except that a key whose getter or Proxy
/// trap throws reads as [`Field::Threw`], so that the refusal names it.
pub fn read_input(env: &Env, value: &Unknown, keys: &'static [&'static str]) -> Field {
  read(env.raw(), value.raw(), keys, 0, true)
}

fn read(
  env: sys::napi_env,
  value: sys::napi_value,
  keys: &'static [&'static str],
  depth: u8,
  report_throws: bool,
) -> Field {
  let Some(kind) = value_type(env, value) else {
    return Field::Missing;
  };
  match kind {
    ValueType::Undefined => Field::Missing,
    ValueType::Null => Field::Null,
    ValueType::Boolean => get_bool(env, value).map_or(Field::Missing, Field::Bool),
    ValueType::Number => get_number(env, value).map_or(Field::Missing, Field::Number),
    ValueType::String => get_string(env, value).map_or(Field::Missing, Field::String),
    ValueType::Function | ValueType::Symbol | ValueType::BigInt => Field::Other(typeof_name(kind)),
    ValueType::Object if is_array(env, value) => {
      if depth > 1 {
        return Field::Other("array");
      }
      let len = array_length(env, value).min(64);
      Field::List(
        (0..len)
          .map(|index| {
            element(env, value, index).map_or(Field::Missing, |item| {
              read(env, item, &[], depth + 1, false)
            })
          })
          .collect(),
      )
    }
    ValueType::Object if depth == 0 => Field::Object(
      keys
        .iter()
        .map(|key| {
          let field = match property(env, value, key) {
            Ok(Some(item)) => read(env, item, &[], depth + 1, false),
            Ok(None) => Field::Missing,
            Err(Some(thrown)) if report_throws => Field::Threw(thrown_text(env, thrown)),
            Err(_) => Field::Missing,
          };
          (*key, field)
        })
        .collect(),
    ),
    _ => Field::Other("object"),
  }
}

// The raw napi calls below all follow one pattern: call, and on any failure clear a pending
// exception (a throwing getter or Proxy trap) so it never surfaces in the caller's JavaScript.

fn settled(env: sys::napi_env, status: sys::napi_status) -> bool {
  status == sys::Status::napi_ok || {
    take_exception(env);
    false
  }
}

/// Clears the pending exception, if any, and returns it.
fn take_exception(env: sys::napi_env) -> Option<sys::napi_value> {
  let mut pending = false;
  let mut exception = ptr::null_mut();
  // SAFETY: `env` is the live env of the current napi call; the first call reads whether an
  // exception is pending, the second takes it (clearing it) into a handle of this call's scope.
  unsafe {
    sys::napi_is_exception_pending(env, &mut pending);
    if pending
      && sys::napi_get_and_clear_last_exception(env, &mut exception) == sys::Status::napi_ok
    {
      return Some(exception);
    }
  }
  None
}

/// Bytes of a thrown value's text that a refusal quotes at most.
const MAX_THROWN_TEXT: usize = 1000;

/// What a thrown value says: its `message` (inherited too, as a `DOMException`'s is; a getter
/// may run, and what that throws is cleared, not read in turn), a string as itself, anything else
/// by its `typeof`.
fn thrown_text(env: sys::napi_env, thrown: sys::napi_value) -> String {
  let kind = value_type(env, thrown);
  let message = match kind {
    Some(ValueType::String) => Some(thrown),
    Some(ValueType::Object | ValueType::Function) => {
      let mut message = ptr::null_mut();
      // SAFETY: `thrown` is an object of this call's handle scope and the name a NUL-terminated
      // literal; a getter may run, and what it throws is cleared by `settled`.
      let status =
        unsafe { sys::napi_get_named_property(env, thrown, c"message".as_ptr(), &mut message) };
      (settled(env, status) && value_type(env, message) == Some(ValueType::String))
        .then_some(message)
    }
    _ => None,
  };
  match message.and_then(|message| get_string_prefix(env, message, MAX_THROWN_TEXT)) {
    Some((text, whole)) if !text.is_empty() => match whole {
      true => text,
      false => format!("{text}…"),
    },
    _ => {
      let name = kind.map_or("undefined", typeof_name);
      format!("a value of type {name} without a message")
    }
  }
}

/// `typeof`'s name for a value of `kind` (an array or null reads as `object`).
fn typeof_name(kind: ValueType) -> &'static str {
  match kind {
    ValueType::Undefined => "undefined",
    ValueType::Boolean => "boolean",
    ValueType::Number => "number",
    ValueType::String => "string",
    ValueType::Symbol => "symbol",
    ValueType::Function => "function",
    ValueType::BigInt => "bigint",
    _ => "object",
  }
}

fn value_type(env: sys::napi_env, value: sys::napi_value) -> Option<ValueType> {
  let mut kind = 0;
  // SAFETY: `value` is a handle from the current call's handle scope.
  let status = unsafe { sys::napi_typeof(env, value, &mut kind) };
  settled(env, status).then(|| ValueType::from(kind))
}

fn is_array(env: sys::napi_env, value: sys::napi_value) -> bool {
  let mut result = false;
  // SAFETY: as above; napi_is_array runs no JavaScript.
  let status = unsafe { sys::napi_is_array(env, value, &mut result) };
  settled(env, status) && result
}

fn array_length(env: sys::napi_env, value: sys::napi_value) -> u32 {
  let mut len = 0;
  // SAFETY: `value` was checked to be an array.
  let status = unsafe { sys::napi_get_array_length(env, value, &mut len) };
  if settled(env, status) { len } else { 0 }
}

fn element(env: sys::napi_env, value: sys::napi_value, index: u32) -> Option<sys::napi_value> {
  let mut item = ptr::null_mut();
  // SAFETY: a getter may run; failures are cleared by `settled`.
  let status = unsafe { sys::napi_get_element(env, value, index, &mut item) };
  settled(env, status).then_some(item)
}

/// An own property only: a key inherited from the prototype (`Object.create({ runId })`, or a
/// polluted `Object.prototype`) reads as missing, and so does a key a Proxy says it does not
/// own. `Err` when reading it failed: with the thrown value when a getter or Proxy trap threw
/// (the exception is cleared).
fn property(
  env: sys::napi_env,
  value: sys::napi_value,
  key: &str,
) -> Result<Option<sys::napi_value>, Option<sys::napi_value>> {
  let failed = |status| match status == sys::Status::napi_ok {
    true => Ok(()),
    false => Err(take_exception(env)),
  };
  let key = std::ffi::CString::new(key).map_err(|_| None)?;
  let mut name = ptr::null_mut();
  // SAFETY: `key` is a NUL-terminated string that outlives the call; creating a string runs no
  // JavaScript.
  failed(unsafe {
    sys::napi_create_string_utf8(env, key.as_ptr(), key.as_bytes().len() as isize, &mut name)
  })?;
  let mut own = false;
  // SAFETY: `name` is a string handle of this call; a Proxy trap may run and its exception is
  // cleared.
  failed(unsafe { sys::napi_has_own_property(env, value, name, &mut own) })?;
  if !own {
    return Ok(None);
  }
  let mut item = ptr::null_mut();
  // SAFETY: as above; a getter may run and its exception is cleared.
  failed(unsafe { sys::napi_get_property(env, value, name, &mut item) })?;
  Ok(Some(item))
}

fn get_bool(env: sys::napi_env, value: sys::napi_value) -> Option<bool> {
  let mut result = false;
  // SAFETY: `value` is a boolean (checked by typeof).
  let status = unsafe { sys::napi_get_value_bool(env, value, &mut result) };
  settled(env, status).then_some(result)
}

fn get_number(env: sys::napi_env, value: sys::napi_value) -> Option<f64> {
  let mut result = 0.0;
  // SAFETY: `value` is a number (checked by typeof).
  let status = unsafe { sys::napi_get_value_double(env, value, &mut result) };
  settled(env, status).then_some(result)
}

fn get_string(env: sys::napi_env, value: sys::napi_value) -> Option<String> {
  get_string_prefix(env, value, usize::MAX).map(|(text, _)| text)
}

/// A string's first `max` bytes of UTF-8 at most (never part of a character), and whether that
/// is all of it.
fn get_string_prefix(
  env: sys::napi_env,
  value: sys::napi_value,
  max: usize,
) -> Option<(String, bool)> {
  let mut len = 0;
  // SAFETY: `value` is a string (checked by typeof); a null buffer asks for the length.
  let status = unsafe { sys::napi_get_value_string_utf8(env, value, ptr::null_mut(), 0, &mut len) };
  if !settled(env, status) {
    return None;
  }
  let whole = len <= max;
  let len = len.min(max);
  let mut buf = vec![0u8; len + 1];
  let mut written = 0;
  // SAFETY: `buf` holds `len + 1` bytes, room for the string and its terminator.
  let status = unsafe {
    sys::napi_get_value_string_utf8(env, value, buf.as_mut_ptr().cast(), buf.len(), &mut written)
  };
  if !settled(env, status) {
    return None;
  }
  buf.truncate(written);
  match whole {
    true => String::from_utf8(buf).ok().map(|text| (text, true)),
    // A cut may end inside a character: keep the whole ones.
    false => Some((
      String::from_utf8_lossy(&buf)
        .trim_end_matches('\u{fffd}')
        .to_string(),
      false,
    )),
  }
}
