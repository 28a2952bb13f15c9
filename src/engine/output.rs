//! Output capture: the items a leg produces (`text()`, `json()`, `console.*`), counted against
//! the leg's `max_output_bytes`. Crossing the cap is terminal for the cell.

use super::limits::{Kill, Signals};

#[derive(Debug, Clone, PartialEq)]
pub enum OutputItem {
  Text(String),
  /// JSON text of the value.
  Json(String),
}

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
      OutputItem::Text(t) | OutputItem::Json(t) => t.len(),
    };
    let room = cap.saturating_sub(self.bytes);
    if len <= room {
      self.bytes += len;
      self.items.push(item);
      return;
    }
    if let OutputItem::Text(text) = item {
      let mut end = room;
      while !text.is_char_boundary(end) {
        end -= 1;
      }
      if end > 0 {
        self.items.push(OutputItem::Text(text[..end].to_string()));
      }
      self.bytes += end;
    }
    signals.kill(Kill::Output);
  }

  /// Takes the items produced since the previous take.
  pub fn take(&mut self) -> Vec<OutputItem> {
    self.bytes = 0;
    std::mem::take(&mut self.items)
  }
}
