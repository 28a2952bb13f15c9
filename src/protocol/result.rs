//! `CodeModeResult` as JSON text. Values and JSON output items arrive as JSON text from the
//! guest and are spliced in as they are, never decoded and re-encoded.

use crate::error::Failure;
use code_mode_protocol::leg::{OutputItem, PendingRequest};

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

fn push_str(out: &mut String, s: &str) {
  out.push_str(&serde_json::to_string(s).expect("strings always serialise"));
}

/// The result JSON. `telemetry` is the run's `CodeModeTelemetry` as JSON text.
pub fn to_json(status: Status, output: &[OutputItem], telemetry: &str) -> String {
  let mut out = String::with_capacity(256);
  out.push_str("{\"status\":");
  match status {
    Status::Completed { value } => {
      out.push_str("\"completed\",\"value\":");
      out.push_str(value);
    }
    Status::Waiting {
      run_id,
      reason,
      pending,
    } => {
      out.push_str("\"waiting\",\"runId\":");
      push_str(&mut out, run_id);
      out.push_str(",\"reason\":");
      push_str(&mut out, reason);
      out.push_str(",\"pendingToolCalls\":[");
      for (i, entry) in pending.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        out.push_str("{\"id\":");
        push_str(&mut out, &entry.id);
        out.push_str(",\"method\":");
        push_str(&mut out, &entry.method);
        if let Some(tool) = &entry.target {
          out.push_str(",\"toolId\":");
          push_str(&mut out, tool);
        }
        out.push('}');
      }
      out.push(']');
    }
    Status::Failed(failure) => {
      out.push_str("\"failed\",\"error\":");
      push_str(&mut out, &failure.message);
      out.push_str(",\"code\":");
      push_str(&mut out, failure.code.as_str());
      out.push_str(",\"failurePhase\":\"");
      out.push_str(failure.phase.as_str());
      out.push('"');
    }
  }
  if !output.is_empty() {
    out.push_str(",\"output\":[");
    for (i, item) in output.iter().enumerate() {
      if i > 0 {
        out.push(',');
      }
      match item {
        OutputItem::Text(text) => {
          out.push_str("{\"type\":\"text\",\"text\":");
          push_str(&mut out, text);
        }
        OutputItem::Json(json) => {
          out.push_str("{\"type\":\"json\",\"value\":");
          out.push_str(json);
        }
      }
      out.push('}');
    }
    out.push(']');
  }
  out.push_str(",\"telemetry\":");
  out.push_str(telemetry);
  out.push('}');
  out
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::error::ErrorCode;
  use serde_json::{Value, json};

  #[test]
  fn shapes() {
    let t = json!({ "catalogSize": 0 });
    let t_text = t.to_string();
    let done = to_json(
      Status::Completed {
        value: "{\"a\":[1]}",
      },
      &[OutputItem::Text("hi \"x\"".into())],
      &t_text,
    );
    let v: Value = serde_json::from_str(&done).unwrap();
    assert_eq!(
      v,
      json!({ "status": "completed", "value": { "a": [1] }, "output": [{ "type": "text", "text": "hi \"x\"" }], "telemetry": t })
    );
    let pending = [PendingRequest {
      id: "c1".into(),
      method: "call".into(),
      target: Some("openclaw:core:x".into()),
    }];
    let waiting = to_json(
      Status::Waiting {
        run_id: "cm_1",
        reason: "pending_tools",
        pending: &pending,
      },
      &[],
      &t_text,
    );
    let v: Value = serde_json::from_str(&waiting).unwrap();
    assert_eq!(
      v["pendingToolCalls"],
      json!([{ "id": "c1", "method": "call", "toolId": "openclaw:core:x" }])
    );
    assert!(v.get("output").is_none());
    let failure = Failure::new(ErrorCode::Timeout, "too slow");
    let v: Value = serde_json::from_str(&to_json(
      Status::Failed(&failure),
      &[OutputItem::Json("2".into())],
      &t_text,
    ))
    .unwrap();
    assert_eq!(
      (v["error"].as_str(), v["code"].as_str()),
      (Some("too slow"), Some("timeout"))
    );
    assert_eq!(v["failurePhase"], "guest");
    assert_eq!(v["output"], json!([{ "type": "json", "value": 2 }]));
  }
}
