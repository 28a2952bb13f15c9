//! Output capture: the items a leg produces (`text()`, `json()`, `console.*`), counted against
//! the leg's `max_output_bytes`. Crossing the cap is terminal for the cell.
//!
//! Text is counted as it crosses to the JS layer, JSON-escaped inside the result: a control
//! character costs its six-byte `\u00XX` escape, so no result holds more than the cap allows.
//! Each item also costs its place in the result's `output` array (its JSON envelope): without
//! that an empty item cost nothing, and a cell logging empty lines in a loop sent Node millions
//! of items, a gigabyte once parsed, within a 64 KiB cap.

use super::limits::{Kill, Signals};
use crate::error::LimitNames;

pub use code_mode_protocol::leg::OutputItem;

/// What an item costs besides its content: its envelope in the result's `output` array, and a
/// comma (src/protocol/result.rs writes these shapes).
const TEXT_ENVELOPE: usize = r#"{"type":"text","text":""},"#.len();
const JSON_ENVELOPE: usize = r#"{"type":"json","value":},"#.len();

/// A leg's output so far.
#[derive(Default)]
pub struct Output {
  items: Vec<OutputItem>,
  bytes: usize,
}

impl Output {
  /// Bytes produced this leg.
  pub fn bytes(&self) -> usize {
    self.bytes
  }

  /// Appends an item, counting bytes as produced; crossing `cap` raises the output kill and
  /// keeps what fits of a text item (a JSON value is all or nothing).
  pub fn push(&mut self, item: OutputItem, cap: usize, signals: &Signals) {
    if signals.killed() == Kill::Output {
      return;
    }
    let len = match &item {
      OutputItem::Text(t) => TEXT_ENVELOPE + escaped_len(t),
      // Already JSON text: spliced into the result as it is.
      OutputItem::Json(t) => JSON_ENVELOPE + t.len(),
    };
    let room = cap.saturating_sub(self.bytes);
    if len <= room {
      self.bytes += len;
      self.items.push(item);
      return;
    }
    if let OutputItem::Text(text) = item {
      let (end, escaped) = escaped_prefix(&text, room.saturating_sub(TEXT_ENVELOPE));
      if end > 0 {
        self.items.push(OutputItem::Text(text[..end].to_string()));
        self.bytes += TEXT_ENVELOPE + escaped;
      }
    }
    signals.kill(Kill::Output);
  }

  /// Takes the items produced since the previous take.
  pub fn take(&mut self) -> Vec<OutputItem> {
    self.bytes = 0;
    std::mem::take(&mut self.items)
  }
}

/// Bytes of one character inside a JSON string, as `serde_json` escapes it.
fn escaped_char_len(c: char) -> usize {
  match c {
    '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
    c if (c as u32) < 0x20 => 6,
    c => c.len_utf8(),
  }
}

/// Bytes of `text` inside a JSON string, quotes excluded.
pub fn escaped_len(text: &str) -> usize {
  // Most text has nothing to escape: count bytes, and look at characters only past a byte that
  // could need it.
  if !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
    return text.len();
  }
  text.chars().map(escaped_char_len).sum()
}

/// The longest prefix of `text` whose escaped length fits `room`: its byte length and its
/// escaped length.
fn escaped_prefix(text: &str, room: usize) -> (usize, usize) {
  let mut escaped = 0;
  for (at, c) in text.char_indices() {
    let len = escaped_char_len(c);
    if escaped + len > room {
      return (at, escaped);
    }
    escaped += len;
  }
  (text.len(), escaped)
}

/// `text` bounded to `cap` escaped bytes: past it, what fits with a marker saying how much was
/// cut. For text that crosses whole, outside the output items (a failed result's error).
pub fn bound_text(text: String, cap: usize, names: &LimitNames) -> String {
  let len = escaped_len(&text);
  if len <= cap {
    return text;
  }
  let marker = format!(
    " … [truncated: {len} bytes, over {} ({cap} bytes)]",
    names.max_output
  );
  let (end, _) = escaped_prefix(&text, cap.saturating_sub(marker.len()));
  let mut bounded = text;
  bounded.truncate(end);
  bounded.push_str(&marker);
  bounded
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::error::CODE_MODE_NAMES;

  #[test]
  fn text_is_counted_escaped() {
    let signals = Signals::new();
    let mut output = Output::default();
    // 100 control characters: 100 bytes of UTF-8, 600 once escaped.
    output.push(OutputItem::Text("\u{1}".repeat(100)), 1024, &signals);
    assert_eq!(output.bytes(), TEXT_ENVELOPE + 600);
    output.push(OutputItem::Text("\u{1}".repeat(100)), 1024, &signals);
    assert_eq!(signals.killed(), Kill::Output);
    let items = output.take();
    let json = serde_json::to_string(
      &items
        .iter()
        .map(|item| match item {
          OutputItem::Text(t) => t.clone(),
          OutputItem::Json(t) => t.clone(),
        })
        .collect::<Vec<_>>(),
    )
    .unwrap();
    // What crosses stays within the cap (quotes and commas aside).
    assert!(json.len() <= 1024 + 8, "{}", json.len());
    assert_eq!(escaped_len("a\"\\\n\u{1}é"), 1 + 2 + 2 + 2 + 6 + 2);
  }

  #[test]
  fn every_item_costs_its_envelope_so_empty_ones_are_capped_too() {
    let signals = Signals::new();
    let mut output = Output::default();
    for _ in 0..1_000_000 {
      output.push(OutputItem::Text(String::new()), 65_536, &signals);
      if signals.killed() == Kill::Output {
        break;
      }
    }
    assert_eq!(signals.killed(), Kill::Output);
    let items = output.take();
    assert_eq!(items.len(), 65_536 / TEXT_ENVELOPE);
    let json = serde_json::to_string(
      &items
        .iter()
        .map(|_| serde_json::json!({ "type": "text", "text": "" }))
        .collect::<Vec<_>>(),
    )
    .unwrap();
    assert!(json.len() <= 65_536, "{}", json.len());
  }

  #[test]
  fn bound_text_keeps_a_prefix_and_says_so() {
    assert_eq!(bound_text("short".into(), 1024, &CODE_MODE_NAMES), "short");
    let bounded = bound_text("x".repeat(8_000_000), 1024, &CODE_MODE_NAMES);
    assert!(bounded.len() <= 1024, "{}", bounded.len());
    assert!(bounded.starts_with("xxx"));
    assert!(bounded.ends_with("[truncated: 8000000 bytes, over maxOutputBytes (1024 bytes)]"));
    let bounded = bound_text("\u{1}".repeat(1000), 1024, &CODE_MODE_NAMES);
    assert!(escaped_len(&bounded) <= 1024);
  }
}
