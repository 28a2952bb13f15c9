//! Reading exec and wait inputs (ARCHITECTURE.md, decision 2): the keys each reads, what a
//! well-formed one is, and the message a malformed one gets. Separate because it is pure (no
//! run, cell or process), and tested on its own.

use crate::config::CodeModeConfig;
use crate::error::{Failure, messages};
use crate::input::Field;
use code_mode_protocol::MAX_CODE_BYTES;

/// Keys read from an exec input.
pub(crate) const EXEC_KEYS: &[&str] = &["code", "command", "language"];
/// Keys read from a wait input.
pub(crate) const WAIT_KEYS: &[&str] = &["runId", "run_id"];

/// The refusal of an input with a key that could not be read (its getter or Proxy trap threw).
fn unreadable(kind: &str, input: &Field) -> Result<(), Failure> {
  let Field::Object(fields) = input else {
    return Ok(());
  };
  match fields.iter().find_map(|(key, field)| match field {
    Field::Threw(thrown) => Some((key, thrown)),
    _ => None,
  }) {
    Some((key, thrown)) => Err(Failure::invalid(format!(
      "{kind} input could not be read: reading its {key} threw: {thrown}"
    ))),
    None => Ok(()),
  }
}

fn string_field(input: &Field, key: &str) -> Result<Option<String>, Failure> {
  match input.get(key) {
    Field::Missing | Field::Null => Ok(None),
    Field::String(s) => Ok(Some(s.clone())),
    other => Err(Failure::invalid(format!(
      "{key} must be a string, not {}.",
      other.type_name()
    ))),
  }
}

/// `{code | command, language?}` → the source and whether it is TypeScript.
pub(super) fn validate_exec(
  input: &Field,
  config: &CodeModeConfig,
) -> Result<(String, bool), Failure> {
  if !matches!(input, Field::Object(_)) {
    return Err(Failure::invalid(format!(
      "exec input must be an object like {{ code: string, language?: \"javascript\" | \"typescript\" }}, not {}.",
      input.type_name()
    )));
  }
  unreadable("exec", input)?;
  let code = string_field(input, "code")?.filter(|c| !c.trim().is_empty());
  let command = string_field(input, "command")?.filter(|c| !c.trim().is_empty());
  let code = match (code, command) {
    (Some(code), Some(command)) if code != command => {
      return Err(Failure::invalid(
        "code and command must match when both are given.",
      ));
    }
    (Some(code), _) | (None, Some(code)) => code,
    (None, None) => return Err(Failure::invalid("exec requires a non-empty code string.")),
  };
  if code.len() > MAX_CODE_BYTES {
    return Err(Failure::invalid(format!(
      "code is {} bytes; code mode accepts at most {MAX_CODE_BYTES}.",
      code.len()
    )));
  }
  let typescript = match input.get("language") {
    Field::Missing | Field::Null => false,
    Field::String(s) if s == "javascript" => false,
    Field::String(s) if s == "typescript" => true,
    _ => {
      return Err(Failure::invalid(
        "language must be \"javascript\" or \"typescript\".",
      ));
    }
  };
  let language = if typescript {
    "typescript"
  } else {
    "javascript"
  };
  if !config.allows(language) {
    return Err(Failure::invalid(if typescript {
      messages::TYPESCRIPT_DISABLED
    } else {
      messages::JAVASCRIPT_DISABLED
    }));
  }
  Ok((code, typescript))
}

/// `{runId}` (or `{run_id}`) → the token.
pub(super) fn validate_wait(input: &Field) -> Result<String, Failure> {
  if !matches!(input, Field::Object(_)) {
    return Err(Failure::invalid(format!(
      "wait input must be an object like {{ runId: string }}, not {}.",
      input.type_name()
    )));
  }
  unreadable("wait", input)?;
  let run_id = string_field(input, "runId")?.filter(|s| !s.is_empty());
  let alias = string_field(input, "run_id")?.filter(|s| !s.is_empty());
  match (run_id, alias) {
    (Some(a), Some(b)) if a != b => Err(Failure::invalid(
      "runId and run_id must match when both are given.",
    )),
    (Some(token), _) | (None, Some(token)) => Ok(token),
    (None, None) => Err(Failure::invalid("wait requires a runId string.")),
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::config;
  use crate::error::ErrorCode;
  use serde_json::{Value, json};

  fn exec_input(v: Value) -> Field {
    Field::from_json(&v, EXEC_KEYS)
  }

  #[test]
  fn exec_validation() {
    let config = config::resolve(&Field::Bool(true));
    let ok = validate_exec(&exec_input(json!({ "code": "1" })), &config).unwrap();
    assert_eq!(ok, ("1".to_string(), false));
    let alias = validate_exec(
      &exec_input(json!({ "command": "2", "language": "typescript" })),
      &config,
    )
    .unwrap();
    assert_eq!(alias, ("2".to_string(), true));
    for (input, message) in [
      (json!("1+1"), "exec input must be an object"),
      (json!({}), "exec requires a non-empty code string."),
      (
        json!({ "code": "  " }),
        "exec requires a non-empty code string.",
      ),
      (json!({ "code": 5 }), "code must be a string, not number."),
      (
        json!({ "code": "a", "command": "b" }),
        "code and command must match",
      ),
      (
        json!({ "code": "a", "language": "python" }),
        "language must be",
      ),
    ] {
      let err = validate_exec(&exec_input(input.clone()), &config).unwrap_err();
      assert!(err.message.starts_with(message), "{input}: {}", err.message);
      assert_eq!(err.code, ErrorCode::InvalidInput);
    }
    let js_only = config::resolve(&Field::from_json(
      &json!({ "enabled": true, "languages": ["javascript"] }),
      config::CONFIG_KEYS,
    ));
    let err = validate_exec(
      &exec_input(json!({ "code": "1", "language": "typescript" })),
      &js_only,
    )
    .unwrap_err();
    assert_eq!(err.message, messages::TYPESCRIPT_DISABLED);
  }

  #[test]
  fn wait_validation() {
    let input = |v: Value| Field::from_json(&v, WAIT_KEYS);
    assert_eq!(
      validate_wait(&input(json!({ "runId": "cm_1" }))).unwrap(),
      "cm_1"
    );
    assert_eq!(
      validate_wait(&input(json!({ "run_id": "cm_2" }))).unwrap(),
      "cm_2"
    );
    assert!(validate_wait(&input(json!({ "runId": "a", "run_id": "b" }))).is_err());
    assert!(validate_wait(&input(json!({}))).is_err());
    assert!(validate_wait(&input(json!(null))).is_err());
  }

  #[test]
  fn a_key_that_threw_is_named() {
    let threw = |key: &'static str, keys: &'static [&'static str]| {
      Field::Object(
        keys
          .iter()
          .map(|k| match *k == key {
            true => (*k, Field::Threw("boom".into())),
            false => (*k, Field::Missing),
          })
          .collect(),
      )
    };
    let config = config::resolve(&Field::Bool(true));
    let err = validate_exec(&threw("language", EXEC_KEYS), &config).unwrap_err();
    assert_eq!(
      err.message,
      "exec input could not be read: reading its language threw: boom"
    );
    let err = validate_wait(&threw("run_id", WAIT_KEYS)).unwrap_err();
    assert_eq!(
      err.message,
      "wait input could not be read: reading its run_id threw: boom"
    );
  }
}
