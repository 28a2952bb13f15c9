//! The outcome of one leg of an OpenClaw executor cell: what a sandbox process answers and
//! `lib/openclaw-executor.js` reads (it makes the executor contract's boundary or result of it;
//! the addon passes the text through). Declared once, here; both writers serialise it.
//!
//! A completed cell's value travels beside the outcome ([`LegAnswer`]), not inside it as a JSON
//! string: the executor parses the small outcome on the gateway's event loop and hands a long
//! value to its capture off the loop, so a cell that returns tens of megabytes never holds the
//! loop for a parse of them.
//!
//! JSON that the guest's controller produced (its output array, a request's argument array) is
//! spliced in as a [`RawValue`]: checked to be exactly one JSON value of the right kind, so no
//! text from a VM can add a field to the outcome around it.

use serde::Serialize;
use serde_json::value::RawValue;

/// A leg's answer as it crosses (declared with the wire's other shapes).
pub use crate::wire::LegAnswer;

impl LegAnswer {
  /// A completed cell's answer: its value's JSON text and its output. A value and outcome longer
  /// together than [`MAX_OUTCOME_BYTES`] are a failure `output_limit_exceeded` instead.
  pub fn completed(value: String, output: Output<'_>, network_content_observed: bool) -> LegAnswer {
    let outcome = ExecutorOutcome::Completed {
      output,
      network_content_observed,
    }
    .to_json();
    let bytes = outcome.len() + value.len();
    if bytes > MAX_OUTCOME_BYTES {
      return too_large(bytes).into();
    }
    LegAnswer {
      outcome,
      value: Some(value),
    }
  }
}

/// One leg's outcome.
#[derive(Debug, Serialize)]
#[serde(
  tag = "status",
  rename_all = "lowercase",
  rename_all_fields = "camelCase"
)]
pub enum ExecutorOutcome<'a> {
  /// Host work is pending: the requests the guest made, and how the host must settle them.
  Boundary {
    pending_requests: Vec<ExecutorRequest<'a>>,
    canceled_request_ids: &'a [String],
    settlement_mode: SettlementMode<'a>,
    #[serde(flatten)]
    output: Output<'a>,
    memory_used_bytes: usize,
    #[serde(skip_serializing_if = "is_false")]
    network_content_observed: bool,
  },
  /// The cell completed; its value's JSON text is [`LegAnswer::value`].
  Completed {
    #[serde(flatten)]
    output: Output<'a>,
    #[serde(skip_serializing_if = "is_false")]
    network_content_observed: bool,
  },
  Failed {
    code: &'a str,
    error: &'a str,
    #[serde(flatten)]
    output: Output<'a>,
    #[serde(skip_serializing_if = "is_false")]
    network_content_observed: bool,
  },
}

/// A leg's output, the guest's items since the last leg: the JSON array whole, or, past the
/// host's `maxOutputBytes`, cut where it is made ([`OutputCut`], beside an empty `output`). What
/// crosses is then what upstream's `captureCodeModeOutput` keeps of it, never megabytes the
/// gateway's event loop would parse only to drop.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Output<'a> {
  output: &'a RawValue,
  #[serde(skip_serializing_if = "Option::is_none")]
  output_cut: Option<OutputCut<'a>>,
}

/// What upstream's `captureCodeModeOutput(output, maxBytes)` keeps of an output whose JSON is
/// longer than `maxBytes` UTF-8 bytes: its item count, the longest prefix of that JSON of at most
/// `maxBytes` bytes that ends between characters, and the JSON's whole length in bytes
/// (`lib/openclaw-executor.js` makes its `{ count, source: { kind: 'prefix', … } }` of these).
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct OutputCut<'a> {
  pub count: usize,
  pub prefix: &'a str,
  pub original_bytes: usize,
}

impl<'a> Output<'a> {
  /// `text` as a leg's output: one JSON array, else the empty array (upstream keeps an array and
  /// drops anything else), cut when it is longer than `cap` bytes. `None`: no cap known here
  /// (the host cuts it).
  pub fn of(text: &'a str, cap: Option<usize>) -> Output<'a> {
    let Some(array) = json_array(text) else {
      return Output::whole(empty_output());
    };
    let json = array.get();
    match cap {
      Some(cap) if json.len() > cap => Output {
        output: empty_output(),
        output_cut: Some(OutputCut {
          count: items(json),
          prefix: utf8_prefix(json, cap),
          original_bytes: json.len(),
        }),
      },
      _ => Output::whole(array),
    }
  }

  /// An output that crosses whole.
  pub fn whole(array: &'a RawValue) -> Output<'a> {
    Output {
      output: array,
      output_cut: None,
    }
  }
}

/// The number of items of a JSON array (checked to be one), without keeping any of them.
fn items(array: &str) -> usize {
  struct Count(usize);
  impl<'de> serde::Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Count, D::Error> {
      struct Items;
      impl<'de> serde::de::Visitor<'de> for Items {
        type Value = Count;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
          f.write_str("a JSON array")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
          let mut n = 0;
          while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            n += 1;
          }
          Ok(Count(n))
        }
      }
      deserializer.deserialize_seq(Items)
    }
  }
  serde_json::from_str::<Count>(array).map_or(0, |Count(n)| n)
}

/// The longest prefix of `text` of at most `max` UTF-8 bytes that ends between characters
/// (upstream's `truncateUtf8Prefix`).
fn utf8_prefix(text: &str, max: usize) -> &str {
  &text[..text.floor_char_boundary(max)]
}

/// A request the guest made of the host.
#[derive(Debug, Serialize)]
pub struct ExecutorRequest<'a> {
  pub id: &'a str,
  pub method: &'a str,
  /// The argument array.
  pub args: &'a RawValue,
}

/// How the host settles a boundary's requests: the cell awaits them, or is draining and needs
/// these settled before it can go on.
#[derive(Debug, Serialize)]
#[serde(
  tag = "kind",
  rename_all = "lowercase",
  rename_all_fields = "camelCase"
)]
pub enum SettlementMode<'a> {
  Awaiting,
  Draining { required_request_ids: Vec<&'a str> },
}

fn is_false(b: &bool) -> bool {
  !*b
}

/// `text` as a JSON array, or `None` when it is not exactly one.
pub fn json_array(text: &str) -> Option<&RawValue> {
  let raw: &RawValue = serde_json::from_str(text).ok()?;
  raw.get().starts_with('[').then_some(raw)
}

/// `text` as a JSON array, or the empty array when it is not exactly one.
pub fn array_or_empty(text: &str) -> &RawValue {
  json_array(text).unwrap_or_else(|| empty_output())
}

/// The empty output array.
pub fn empty_output() -> &'static RawValue {
  json_array("[]").unwrap_or_else(|| unreachable!("[] is a JSON array"))
}

/// The longest answer (outcome and value): its frame must stay within
/// [`crate::wire::MAX_REPORT`], past which the addon takes the process for a broken peer.
pub const MAX_OUTCOME_BYTES: usize = crate::wire::MAX_REPORT - (1 << 20);

impl ExecutorOutcome<'_> {
  /// The outcome as JSON text; an outcome longer than [`MAX_OUTCOME_BYTES`] (many requests'
  /// arguments, a long output) is a failure `output_limit_exceeded` instead.
  pub fn to_json(&self) -> String {
    // Serialising these types cannot fail: every map key is a string and every value plain.
    let json = serde_json::to_string(self).unwrap_or_default();
    if json.len() > MAX_OUTCOME_BYTES {
      return too_large(json.len());
    }
    json
  }
}

fn too_large(bytes: usize) -> String {
  failed_json(
    "output_limit_exceeded",
    &format!(
      "code mode result is too large to return ({bytes} bytes of JSON; at most {MAX_OUTCOME_BYTES})"
    ),
  )
}

/// The outcome of a leg that did not run.
pub fn failed_json(code: &str, error: &str) -> String {
  ExecutorOutcome::Failed {
    code,
    error,
    output: Output::whole(empty_output()),
    network_content_observed: false,
  }
  .to_json()
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_boundary_lists_requests_and_how_to_settle_them() {
    let canceled = ["bridge:call:1".to_string()];
    let args = json_array("[{\"a\":1.50}]").unwrap_or_else(|| empty_output());
    let outcome = ExecutorOutcome::Boundary {
      pending_requests: vec![ExecutorRequest {
        id: "bridge:call:2",
        method: "call",
        args,
      }],
      canceled_request_ids: &canceled,
      settlement_mode: SettlementMode::Draining {
        required_request_ids: vec!["bridge:call:2"],
      },
      output: Output::of("[{\"type\":\"text\",\"text\":\"hi\"}]", Some(1 << 16)),
      memory_used_bytes: 4096,
      network_content_observed: true,
    };
    assert_eq!(
      outcome.to_json(),
      r#"{"status":"boundary","pendingRequests":[{"id":"bridge:call:2","method":"call","args":[{"a":1.50}]}],"canceledRequestIds":["bridge:call:1"],"settlementMode":{"kind":"draining","requiredRequestIds":["bridge:call:2"]},"output":[{"type":"text","text":"hi"}],"memoryUsedBytes":4096,"networkContentObserved":true}"#
    );
  }

  #[test]
  fn an_answer_too_long_to_send_is_a_failure() {
    let fits = "1".repeat(MAX_OUTCOME_BYTES - 100);
    let answer = LegAnswer::completed(fits.clone(), Output::whole(empty_output()), false);
    assert_eq!(answer.value.as_deref(), Some(fits.as_str()));
    // Control characters are not escaped on the way: the value is not inside the outcome.
    let controls = "\u{1}".repeat(MAX_OUTCOME_BYTES / 2);
    assert!(
      LegAnswer::completed(controls, Output::whole(empty_output()), false)
        .value
        .is_some()
    );
    let answer = LegAnswer::completed(
      fits + &"1".repeat(100),
      Output::whole(empty_output()),
      false,
    );
    assert_eq!(answer.value, None);
    assert!(
      answer
        .outcome
        .starts_with(r#"{"status":"failed","code":"output_limit_exceeded""#)
    );
    assert!(answer.outcome.len() < 1000);
  }

  #[test]
  fn completed_and_failed_carry_no_flag_unless_set() {
    let completed = LegAnswer::completed("{\"n\":1}".into(), Output::whole(empty_output()), false);
    assert_eq!(completed.outcome, r#"{"status":"completed","output":[]}"#);
    assert_eq!(completed.value.as_deref(), Some(r#"{"n":1}"#));
    assert_eq!(
      failed_json("runtime_unavailable", "no \"VM\""),
      r#"{"status":"failed","code":"runtime_unavailable","error":"no \"VM\"","output":[]}"#
    );
    let awaiting = ExecutorOutcome::Boundary {
      pending_requests: vec![],
      canceled_request_ids: &[],
      settlement_mode: SettlementMode::Awaiting,
      output: Output::whole(empty_output()),
      memory_used_bytes: 0,
      network_content_observed: false,
    };
    assert!(
      awaiting
        .to_json()
        .contains(r#""settlementMode":{"kind":"awaiting"}"#)
    );
  }

  #[test]
  fn an_output_past_the_cap_crosses_as_what_the_capture_keeps() {
    // Fits: whole. The cap is in UTF-8 bytes of the JSON text, as upstream counts.
    let text = r#"[{"type":"text","text":"héllo"}]"#;
    let fits = Output::of(text, Some(text.len()));
    assert_eq!(fits.output.get(), text);
    assert!(fits.output_cut.is_none());
    // One byte over: cut between characters (`é` is two bytes), with the items counted.
    let cut = Output::of(text, Some(26)).output_cut.unwrap();
    assert_eq!(
      cut,
      OutputCut {
        count: 1,
        prefix: r#"[{"type":"text","text":"h"#,
        original_bytes: text.len(),
      }
    );
    let two = r#"[{"type":"json","value":[1,2,3]},"😀😀"]"#;
    let cut = Output::of(two, Some(37)).output_cut.unwrap();
    assert_eq!(
      (cut.count, cut.prefix),
      (2, r#"[{"type":"json","value":[1,2,3]},""#)
    );
    // Written beside an empty `output`; no cap known, never cut; not an array, empty.
    let outcome = ExecutorOutcome::Completed {
      output: Output::of(text, Some(10)),
      network_content_observed: false,
    };
    assert_eq!(
      outcome.to_json(),
      r#"{"status":"completed","output":[],"outputCut":{"count":1,"prefix":"[{\"type\":\"","originalBytes":33}}"#
    );
    assert!(Output::of(text, None).output_cut.is_none());
    assert_eq!(Output::of("{}", Some(1)).output.get(), "[]");
  }

  #[test]
  fn only_one_json_array_passes_as_raw_text() {
    assert!(json_array("[1, \"\\ud800\"]").is_some());
    assert!(json_array(" [] ").is_some());
    // Text that would add fields around it, or that is not an array, is refused.
    assert!(json_array("[1],\"status\":\"completed\",\"x\":[2]").is_none());
    assert!(json_array("{}").is_none());
    assert!(json_array("[").is_none());
    assert!(json_array("").is_none());
  }
}
