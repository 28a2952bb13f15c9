//! Positions: from the executed code back to the user's lines, and from swc positions in the
//! wrapped source to the user's (line, column).

use super::wrapper::{PREFIX, START};
use swc_core::common::BytePos;

/// Maps a (line, byte column) of the executed code to the user's (line, character column).
#[derive(Debug)]
pub struct PositionMap {
  /// The user's own source, to count characters.
  user: String,
  executed_lines: Vec<usize>,
  mapping: Mapping,
}

#[derive(Debug)]
enum Mapping {
  /// JavaScript: executed = PREFIX + user with `(offset in executed, length)` insertions.
  Inserted(Vec<(usize, usize)>),
  /// TypeScript: `(generated line, generated column, offset in the wrapped TS source)`, sorted.
  Generated(Vec<(u32, u32, usize)>),
}

fn line_starts(text: &str) -> Vec<usize> {
  std::iter::once(0)
    .chain(text.match_indices('\n').map(|(i, _)| i + 1))
    .collect()
}

impl PositionMap {
  /// The map of a JavaScript cell: `executed` is the wrapped `user` with text inserted at
  /// `(offset in executed, length)`.
  pub(crate) fn inserted(user: &str, executed: &str, insertions: Vec<(usize, usize)>) -> Self {
    PositionMap {
      user: user.to_string(),
      executed_lines: line_starts(executed),
      mapping: Mapping::Inserted(insertions),
    }
  }

  /// The map of a TypeScript cell: `(generated line, generated column, offset in the wrapped
  /// source)` as the emitter recorded them.
  pub(crate) fn generated(user: &str, mut pairs: Vec<(u32, u32, usize)>) -> Self {
    pairs.sort_unstable();
    PositionMap {
      user: user.to_string(),
      executed_lines: Vec::new(),
      mapping: Mapping::Generated(pairs),
    }
  }

  /// The user's 1-based (line, column) for a 1-based executed (line, byte column).
  pub fn user_position(&self, line: u32, column: u32) -> Option<(u32, u32)> {
    let offset = match &self.mapping {
      Mapping::Inserted(insertions) => {
        let start = *self.executed_lines.get(line.checked_sub(1)? as usize)?;
        let mut offset = start + column.saturating_sub(1) as usize;
        let shift: usize = insertions
          .iter()
          .filter(|(at, len)| *at + *len <= offset)
          .map(|(_, len)| len)
          .sum();
        offset -= shift;
        let offset = offset.checked_sub(PREFIX.len())?;
        // QuickJS falls back to (line of the function, column 1) when it recorded no position
        // for the failing instruction; that points at indentation, not at code.
        if self
          .user
          .as_bytes()
          .get(offset)
          .is_some_and(u8::is_ascii_whitespace)
        {
          return None;
        }
        offset
      }
      Mapping::Generated(pairs) => {
        let (line, column) = (line.checked_sub(1)?, column.saturating_sub(1));
        let i = pairs.partition_point(|&(l, c, _)| (l, c) <= (line, column));
        let &(l, _, offset) = pairs.get(i.checked_sub(1)?)?;
        if l != line {
          return None;
        }
        offset.checked_sub(PREFIX.len())?
      }
    };
    Some(user_line_col(&self.user, offset))
  }
}

/// 1-based (line, character column) of a byte offset in `text` (clamped to its length).
pub fn user_line_col(text: &str, offset: usize) -> (u32, u32) {
  let offset = text.floor_char_boundary(offset);
  let before = &text[..offset];
  let line = before.matches('\n').count() as u32 + 1;
  let line_start = before.rfind('\n').map_or(0, |i| i + 1);
  let column = before[line_start..].chars().count() as u32 + 1;
  (line, column)
}

/// Position in the user's code of a swc position in the wrapped source.
pub(crate) fn user_pos(user: &str, pos: BytePos) -> (u32, u32) {
  let offset = (pos.0.saturating_sub(START) as usize).saturating_sub(PREFIX.len());
  user_line_col(user, offset)
}

/// `line L, column C` of a swc position in the wrapped source, for messages.
pub(crate) fn at(user: &str, pos: BytePos) -> String {
  let (line, column) = user_pos(user, pos);
  format!("line {line}, column {column}")
}
