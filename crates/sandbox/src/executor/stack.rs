//! Stack traces as upstream prints them: frames of the wrapped program mapped back to the
//! model's own lines and columns, controller frames dropped (upstream's `normalizeSourceStack`
//! and `formatQuickJsError`, which its worker runs on the host).

/// Upstream's name for the model's program: stack frames and the source-location global name it.
pub const USER_FILE: &str = "openclaw-code-mode:user.js";

/// Where the model's code sits inside the wrapped program (`buildUserSource`'s `location`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
  pub line_offset: u64,
  pub line_count: u64,
  pub column_offset: u64,
  pub end_column: u64,
}

impl Location {
  /// Reads the location JSON; `None` when it is not one upstream would accept.
  pub fn parse(json: &str) -> Option<Location> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let n = |k: &str| v.get(k)?.as_u64().filter(|n| *n <= (1 << 53));
    let location = Location {
      line_offset: n("lineOffset")?,
      line_count: n("lineCount")?,
      column_offset: n("columnOffset")?,
      end_column: n("endColumn")?,
    };
    let valid = v.get("file")?.as_str()? == USER_FILE
      && location.line_count > 0
      && location.end_column > 0
      && !(location.line_count == 1 && location.end_column <= location.column_offset);
    valid.then_some(location)
  }
}

/// One frame line `   at f (openclaw-code-mode:user.js:L:C)`: whether it is the user's file,
/// its line and column, and the byte range of `openclaw-code-mode:user.js:L:C` in `line`.
fn frame(line: &str) -> Option<(bool, u64, u64, std::ops::Range<usize>)> {
  let body = line.trim_start_matches(|c: char| c.is_whitespace() && c != '\r' && c != '\n');
  if body.len() == line.len() || !body.starts_with("at ") {
    return None;
  }
  let end = line.strip_suffix(')').unwrap_or(line);
  let (rest, column) = end.rsplit_once(':')?;
  let (rest, number) = rest.rsplit_once(':')?;
  let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
  if !digits(column) || !digits(number) {
    return None;
  }
  let (user, file) = if rest.ends_with(USER_FILE) {
    (true, USER_FILE)
  } else if rest.ends_with("openclaw-code-mode:controller.js") {
    (false, "openclaw-code-mode:controller.js")
  } else {
    return None;
  };
  let range = rest.len() - file.len()..end.len();
  Some((user, number.parse().ok()?, column.parse().ok()?, range))
}

/// Upstream's `normalizeSourceStack`: `None` when there is no stack or no location.
pub fn normalize_stack(stack: &str, location: Option<&Location>) -> Option<String> {
  let location = location?;
  if stack.is_empty() {
    return None;
  }
  let mut out = String::with_capacity(stack.len());
  for piece in stack.split_inclusive('\n') {
    let line = piece.strip_suffix('\n').unwrap_or(piece);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let Some((user, number, column, range)) = frame(line) else {
      out.push_str(piece);
      continue;
    };
    if !user || number < location.line_offset + 1 {
      continue;
    }
    let mapped_line = number - location.line_offset;
    let mapped_column = if mapped_line == 1 {
      column.checked_sub(location.column_offset)
    } else {
      Some(column)
    };
    let Some(mapped_column) = mapped_column.filter(|c| *c >= 1) else {
      continue;
    };
    if mapped_line > location.line_count
      || (mapped_line == location.line_count && column > location.end_column)
    {
      continue;
    }
    out.push_str(&line[..range.start]);
    out.push_str(&format!("{USER_FILE}:{mapped_line}:{mapped_column}"));
    out.push_str(&line[range.end..]);
    out.push_str(&piece[line.len()..]);
  }
  Some(out)
}

/// Upstream's `formatQuickJsError`: `Name: message`, then the mapped stack unless it only
/// repeats that header.
pub fn format_error(name: &str, message: &str, stack: &str, location: Option<&Location>) -> String {
  let header = if message.is_empty() {
    name.to_string()
  } else {
    format!("{name}: {message}")
  };
  let stack = normalize_stack(stack, location).unwrap_or_else(|| stack.to_string());
  if stack.is_empty() || stack.split(['\r', '\n']).next() == Some(header.as_str()) {
    return header;
  }
  format!("{header}\n{stack}")
}

#[cfg(test)]
mod tests {
  use super::*;

  fn location() -> Location {
    Location::parse(
      r#"{"file":"openclaw-code-mode:user.js","lineOffset":1,"lineCount":2,"columnOffset":0,"endColumn":20}"#,
    )
    .unwrap()
  }

  #[test]
  fn user_frames_are_mapped_and_controller_frames_dropped() {
    let stack = "    at f (openclaw-code-mode:controller.js:10:3)\n    at <anonymous> (openclaw-code-mode:user.js:2:42)\n    at <anonymous> (openclaw-code-mode:user.js:3:7)\n";
    assert_eq!(
      normalize_stack(stack, Some(&location())).unwrap(),
      "    at <anonymous> (openclaw-code-mode:user.js:1:42)\n    at <anonymous> (openclaw-code-mode:user.js:2:7)\n"
    );
    // The wrapper's own first line and lines past the end are not the user's.
    assert_eq!(
      normalize_stack(
        "    at x (openclaw-code-mode:user.js:1:5)\n",
        Some(&location())
      )
      .unwrap(),
      ""
    );
    assert_eq!(normalize_stack("", Some(&location())), None);
    // Numbers a guest wrote itself (a stack it assigned) are read, not trusted to round-trip.
    assert_eq!(
      normalize_stack(
        "    at f (openclaw-code-mode:user.js:02:05)",
        Some(&location())
      )
      .unwrap(),
      "    at f (openclaw-code-mode:user.js:1:5)"
    );
    assert_eq!(normalize_stack("a", None), None);
  }

  #[test]
  fn errors_print_like_upstream() {
    assert_eq!(
      format_error(
        "Error",
        "boom",
        "    at <anonymous> (openclaw-code-mode:user.js:2:42)\n",
        Some(&location())
      ),
      "Error: boom\n    at <anonymous> (openclaw-code-mode:user.js:1:42)\n"
    );
    assert_eq!(format_error("Error", "", "", None), "Error");
    assert!(
      Location::parse(
        r#"{"file":"x.js","lineOffset":1,"lineCount":1,"columnOffset":0,"endColumn":3}"#
      )
      .is_none()
    );
  }
}
