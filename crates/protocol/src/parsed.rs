//! What a JSON text costs the process that parses it. The gateway parses a cell's tool inputs
//! and the executor's bridge arguments on Node's main thread, and V8 holds far more than the
//! text for a value of many small parts: `[{},{},…]` is 3 bytes of text per element and about
//! 64 bytes of heap once parsed. So a cap on what a cell sends the gateway is a cap on
//! [`parsed_bytes`], not on the text's length.

/// Bytes charged for each value in a JSON text. `JSON.parse` under Node 20 held 8 to 72 bytes
/// per value beyond the text (a number in an array 8, a short string 32, an empty object 64, an
/// object of a million distinct keys 72 per key), so an estimate made with this is within a
/// small factor of what is held.
pub const PER_VALUE: usize = 48;

/// The larger of `json`'s length and [`PER_VALUE`] for every value in it: an estimate of the
/// heap a JavaScript engine holds for it once parsed. A text of a few large values (a file's
/// content) costs its length, one of many small values their count. Values are counted by the
/// brackets and commas outside strings, so any text gets a number (one that is not JSON is
/// refused by its parser later).
pub fn parsed_bytes(json: &str) -> usize {
  let mut values: usize = 1;
  let mut in_string = false;
  let mut escaped = false;
  for &byte in json.as_bytes() {
    if in_string {
      if escaped {
        escaped = false;
      } else if byte == b'\\' {
        escaped = true;
      } else if byte == b'"' {
        in_string = false;
      }
    } else {
      match byte {
        b'"' => in_string = true,
        b'[' | b'{' | b',' => values += 1,
        _ => {}
      }
    }
  }
  json.len().max(values.saturating_mul(PER_VALUE))
}

/// Why a tool input of `json_len` bytes of JSON, `parsed` bytes once parsed ([`parsed_bytes`]),
/// is refused under a cap of `cap` bytes (`name` is how the host's users know the cap), or `None`
/// when it fits. One text for the guest's call (the sandbox) and Tool Search's `tool_call` (the
/// addon).
pub fn over_input_cap(json_len: usize, parsed: usize, cap: usize, name: &str) -> Option<String> {
  if parsed <= cap {
    return None;
  }
  Some(if json_len > cap {
    format!("tool input is {json_len} bytes, over {name} ({cap} bytes).")
  } else {
    format!(
      "tool input is {json_len} bytes of JSON but about {parsed} bytes once parsed (it has many small values), over {name} ({cap} bytes)."
    )
  })
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn many_small_values_cost_more_than_their_text() {
    let objects = format!("[{}]", vec!["{}"; 1000].join(","));
    assert_eq!(parsed_bytes(&objects), (1 + 1 + 1000 + 999) * PER_VALUE);
    assert!(parsed_bytes(&objects) > 30 * objects.len());
  }

  #[test]
  fn a_long_string_costs_about_its_text() {
    let text = serde_json::to_string(&"x".repeat(1 << 20)).unwrap();
    assert_eq!(parsed_bytes(&text), text.len());
    let record = format!(r#"{{"path":"/a","content":{text}}}"#);
    assert_eq!(parsed_bytes(&record), record.len());
  }

  #[test]
  fn brackets_and_commas_inside_strings_are_text() {
    assert_eq!(parsed_bytes(r#"{"a":"[,{\",]"}"#), 2 * PER_VALUE);
    assert_eq!(parsed_bytes(r#"["\\",1]"#), 3 * PER_VALUE);
  }
}
