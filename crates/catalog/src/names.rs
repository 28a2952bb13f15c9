//! Catalog ids, the tools the catalog never holds, and safe convenience names.

/// Tool Search controls and code mode's own `wait`: never cataloged from OpenClaw sources, so
/// guest code cannot recurse into the model surface.
pub const CONTROL_TOOLS: [&str; 5] = [
  "wait",
  "tool_search_code",
  "tool_search",
  "tool_describe",
  "tool_call",
];

/// `Object.prototype`'s members, plus `then` (which would make an object a thenable): no
/// generated property (convenience function, MCP server or tool) may take these names.
pub const PROTOTYPE_NAMES: [&str; 13] = [
  "then",
  "constructor",
  "__proto__",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "toString",
  "valueOf",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
];

/// JavaScript's reserved words, those of strict mode and of async functions (a cell is a strict
/// async function body), and the names a function body binds itself: no generated identifier or
/// guest global may be one.
pub const RESERVED_WORDS: &[&str] = &[
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "null",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "yield",
  "let",
  "static",
  "implements",
  "interface",
  "package",
  "private",
  "protected",
  "public",
  "await",
  "arguments",
  "eval",
  "undefined",
];

/// The catalog helpers a convenience function may not shadow.
const HELPERS: [&str; 3] = ["search", "describe", "call"];

/// `<source>:<owner>:<name>`.
pub fn tool_id(source: &str, owner: &str, name: &str) -> String {
  let mut id = String::with_capacity(source.len() + owner.len() + name.len() + 2);
  id.push_str(source);
  id.push(':');
  id.push_str(owner);
  id.push(':');
  id.push_str(name);
  id
}

/// Identifier-safe form of a tool name: `web-search` → `web_search`, `2fa.check` → `_2fa_check`.
pub fn safe_name(name: &str) -> String {
  let mut out = String::with_capacity(name.len() + 1);
  for ch in name.chars() {
    if ch.is_ascii_alphanumeric() || ch == '_' || ch == '$' {
      out.push(ch);
    } else {
      out.push('_');
    }
  }
  if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
    out.insert(0, '_');
  }
  out
}

/// True when `name` may be installed as `tools.<name>`.
pub fn is_installable(name: &str) -> bool {
  !HELPERS.contains(&name) && !PROTOTYPE_NAMES.contains(&name)
}

/// True for a JavaScript identifier made of ASCII letters, digits, `_` and `$`.
pub fn is_identifier(name: &str) -> bool {
  let mut chars = name.chars();
  matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn safe_names() {
    assert_eq!(safe_name("web-search"), "web_search");
    assert_eq!(safe_name("fs.read file"), "fs_read_file");
    assert_eq!(safe_name("2fa"), "_2fa");
    assert_eq!(safe_name(""), "_");
    assert!(!is_installable("constructor"));
    assert!(!is_installable("then"));
    assert!(is_installable("web_search"));
  }

  #[test]
  fn identifiers() {
    assert!(is_identifier("Issues"));
    assert!(is_identifier("$x_1"));
    assert!(!is_identifier("1x"));
    assert!(!is_identifier("a-b"));
    assert!(!is_identifier(""));
  }
}
