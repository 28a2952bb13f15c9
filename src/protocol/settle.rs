//! Settled outcomes, as `OutcomeQueue` in `lib/generated/protocol.js` packs them (the layout is
//! `code_mode_protocol::packed::settled`): `numbers` holds `[cell, call, ok (0 or 1), length]`
//! per outcome, in order; `payloads` is their payloads joined, each `length` UTF-16 code units
//! long.

use code_mode_protocol::packed::settled::{CALL, CELL, LENGTH, OK, STRIDE};

/// One outcome: the call, whether it succeeded, and its payload (JSON text when ok, else the
/// error message).
pub type Settled = (u32, bool, Option<String>);

/// Decodes packed outcomes into runs of consecutive outcomes of one cell, in order. A
/// malformed entry (its length past the end of `payloads`) ends the list there. Lone
/// surrogates become U+FFFD, as in any string the JS layer hands over.
pub fn decode(numbers: &[f64], payloads: &[u16]) -> Vec<(u64, Vec<Settled>)> {
  let mut at = 0usize;
  let mut runs: Vec<(u64, Vec<Settled>)> = Vec::new();
  for entry in numbers.chunks_exact(STRIDE) {
    let (cell, call, ok, len) = (
      entry[CELL] as u64,
      entry[CALL] as u32,
      entry[OK] != 0.0,
      entry[LENGTH],
    );
    let Some(text) = payloads.get(at..at.saturating_add(len as usize)) else {
      break;
    };
    at += text.len();
    let outcome = (call, ok, Some(String::from_utf16_lossy(text)));
    match runs.last_mut() {
      Some((last, outcomes)) if *last == cell => outcomes.push(outcome),
      _ => runs.push((cell, vec![outcome])),
    }
  }
  runs
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn runs_by_cell_and_stops_at_a_malformed_entry() {
    let text: Vec<u16> = "ok😀x\u{e9}".encode_utf16().collect();
    let numbers = [
      1.0, 1.0, 1.0, 2.0, 1.0, 2.0, 0.0, 2.0, 2.0, 1.0, 1.0, 2.0, 3.0, 1.0, 1.0, 9.0,
    ];
    let runs = decode(&numbers, &text);
    assert_eq!(
      runs,
      vec![
        (
          1,
          vec![(1, true, Some("ok".into())), (2, false, Some("😀".into()))]
        ),
        (2, vec![(1, true, Some("x\u{e9}".into()))]),
      ]
    );
    // A lone surrogate becomes U+FFFD.
    let lone = [0xd800u16];
    assert_eq!(
      decode(&[5.0, 1.0, 1.0, 1.0], &lone),
      vec![(5, vec![(1, true, Some("\u{fffd}".into()))])]
    );
  }
}
