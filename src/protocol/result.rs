//! A leg's `CodeModeResult` (declared in `types.rs`) as the JSON text the JS layer parses. The
//! guest's values and JSON output items arrive as JSON text and are spliced in as they are
//! ([`RawValue`]), never decoded and re-encoded.

use super::types::{CodeModeOutput, CodeModePendingToolCall, CodeModeResult, CodeModeTelemetry};
use crate::error::{ErrorCode, Failure, FailurePhase};
use code_mode_protocol::leg::{OutputItem, PendingRequest};
use serde_json::value::RawValue;

pub enum Status<'a> {
  Completed {
    value: &'a str,
  },
  Waiting {
    run_id: &'a str,
    reason: &'a str,
    pending: &'a [PendingRequest],
  },
  Failed(&'a Failure),
}

/// JSON text from the guest as a raw value. QuickJS's `JSON.stringify` wrote it, so it is
/// valid; if it ever is not, the result says so rather than carrying broken JSON.
fn raw(json: String) -> Result<Box<RawValue>, Failure> {
  RawValue::from_string(json).map_err(|error| {
    Failure::new(
      ErrorCode::InternalError,
      format!("the cell's JSON could not be read back: {error}"),
    )
    .in_phase(FailurePhase::Host)
  })
}

fn output_items(output: Vec<OutputItem>) -> Result<Option<Vec<CodeModeOutput>>, Failure> {
  if output.is_empty() {
    return Ok(None);
  }
  let items = output
    .into_iter()
    .map(|item| match item {
      OutputItem::Text(text) => Ok(CodeModeOutput::Text { text }),
      OutputItem::Json(json) => Ok(CodeModeOutput::Json { value: raw(json)? }),
    })
    .collect::<Result<_, Failure>>()?;
  Ok(Some(items))
}

fn failed(
  failure: &Failure,
  output: Option<Vec<CodeModeOutput>>,
  telemetry: CodeModeTelemetry,
) -> CodeModeResult {
  CodeModeResult::Failed {
    error: failure.message.clone(),
    code: failure.code.into(),
    failure_phase: failure.phase.into(),
    output,
    telemetry,
  }
}

fn build(
  status: Status,
  output: Vec<OutputItem>,
  telemetry: CodeModeTelemetry,
) -> Result<CodeModeResult, (Failure, CodeModeTelemetry)> {
  let output = match output_items(output) {
    Ok(output) => output,
    Err(failure) => return Err((failure, telemetry)),
  };
  Ok(match status {
    Status::Completed { value } => match raw(value.to_owned()) {
      Ok(value) => CodeModeResult::Completed {
        value,
        output,
        telemetry,
      },
      Err(failure) => return Err((failure, telemetry)),
    },
    Status::Waiting {
      run_id,
      reason,
      pending,
    } => CodeModeResult::Waiting {
      run_id: run_id.to_owned(),
      reason: reason.to_owned(),
      pending_tool_calls: Some(
        pending
          .iter()
          .map(|p| CodeModePendingToolCall {
            id: p.id.clone(),
            method: p.method.to_string(),
            tool_id: p.target.clone(),
          })
          .collect(),
      ),
      output,
      telemetry,
    },
    Status::Failed(failure) => failed(failure, output, telemetry),
  })
}

/// The result JSON of a leg that ended with `status` and `output`.
pub fn to_json(status: Status, output: Vec<OutputItem>, telemetry: CodeModeTelemetry) -> String {
  let result = build(status, output, telemetry)
    .unwrap_or_else(|(failure, telemetry)| failed(&failure, None, telemetry));
  // Serialising these types cannot fail: every map key is a string and every value is plain.
  serde_json::to_string(&result).unwrap_or_default()
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::protocol::types::CodeModeSources;
  use serde_json::{Value, json};

  fn telemetry() -> CodeModeTelemetry {
    CodeModeTelemetry {
      catalog_size: 3,
      sources: CodeModeSources {
        openclaw: 2,
        mcp: 1,
        client: 0,
      },
      search_count: 0,
      describe_count: 1,
      call_count: 2,
      visible_tools: ["exec", "wait"],
    }
  }

  fn read(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
  }

  const TELEMETRY: &str = r#"{"catalogSize":3,"sources":{"openclaw":2,"mcp":1,"client":0},"searchCount":0,"describeCount":1,"callCount":2,"visibleTools":["exec","wait"]}"#;

  #[test]
  fn completed_splices_the_value_and_json_output_raw() {
    let done = to_json(
      Status::Completed {
        value: "{\"a\":[1],\"big\":12345678901234567890}",
      },
      vec![
        OutputItem::Text("hi \"x\"".into()),
        OutputItem::Json("{\"n\":1.50}".into()),
      ],
      telemetry(),
    );
    // Raw: the number keeps its text (a decode and re-encode would round it or drop `1.50`).
    assert_eq!(
      done,
      format!(
        r#"{{"status":"completed","value":{{"a":[1],"big":12345678901234567890}},"output":[{{"type":"text","text":"hi \"x\""}},{{"type":"json","value":{{"n":1.50}}}}],"telemetry":{TELEMETRY}}}"#
      )
    );
  }

  #[test]
  fn waiting_lists_what_it_waits_on_and_no_empty_output() {
    let pending = [
      PendingRequest {
        id: "c1".into(),
        method: "call".into(),
        target: Some("openclaw:core:x".into()),
      },
      PendingRequest {
        id: "timer_2".into(),
        method: "timer".into(),
        target: None,
      },
    ];
    let v = read(&to_json(
      Status::Waiting {
        run_id: "cm_1",
        reason: "pending_tools",
        pending: &pending,
      },
      vec![],
      telemetry(),
    ));
    assert_eq!(v["status"], "waiting");
    assert_eq!(v["runId"], "cm_1");
    assert_eq!(v["reason"], "pending_tools");
    assert_eq!(
      v["pendingToolCalls"],
      json!([{ "id": "c1", "method": "call", "toolId": "openclaw:core:x" }, { "id": "timer_2", "method": "timer" }])
    );
    assert!(v.get("output").is_none());
  }

  #[test]
  fn failed_names_code_and_phase() {
    let failure = Failure::new(ErrorCode::Timeout, "too slow");
    let v = read(&to_json(
      Status::Failed(&failure),
      vec![OutputItem::Json("2".into())],
      telemetry(),
    ));
    assert_eq!(
      v,
      json!({ "status": "failed", "error": "too slow", "code": "timeout", "failurePhase": "guest",
              "output": [{ "type": "json", "value": 2 }], "telemetry": read(TELEMETRY) })
    );
  }

  #[test]
  fn broken_guest_json_is_a_failure_not_broken_text() {
    let v = read(&to_json(
      Status::Completed { value: "{oops" },
      vec![OutputItem::Text("kept?".into())],
      telemetry(),
    ));
    assert_eq!(v["status"], "failed");
    assert_eq!(v["code"], "internal_error");
    assert_eq!(v["failurePhase"], "host");
    let v = read(&to_json(
      Status::Completed { value: "1" },
      vec![OutputItem::Json("[".into())],
      telemetry(),
    ));
    assert_eq!(v["code"], "internal_error");
  }
}
