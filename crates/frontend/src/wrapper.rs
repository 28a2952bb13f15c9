//! The async-function wrapper a cell body runs in, as text.
//!
//! A cell body runs as the body of `(async function () { … })`, so top-level `await` and
//! `return` work and user declarations shadow globals. The wrapper opens on the user's first
//! line, so line numbers never move.

/// Text before the user's code.
pub const PREFIX: &str = "(async function () {";
/// Text after the user's code.
pub const SUFFIX: &str = "\n})";
/// swc positions start at 1 (0 is the dummy span).
pub(crate) const START: u32 = 1;

/// Text of a wrapped source: the prefix, the user's code, the suffix.
pub fn wrap(code: &str) -> String {
  let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
  wrapped.push_str(PREFIX);
  wrapped.push_str(code);
  wrapped.push_str(SUFFIX);
  wrapped
}
