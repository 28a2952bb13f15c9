//! The suffix stemmer: `schedules`, `scheduled` and `scheduling` all become `schedul`, and a
//! few irregular past forms (`sent`, `ran`) become their base word. Index and query share it.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Irregular past forms a model writes ("a message I sent") and their base word.
const IRREGULAR: &str = "sent:send ran:run wrote:write written:write took:take taken:take \
  made:make got:get gotten:get found:find built:build began:begin begun:begin chose:choose \
  chosen:choose left:leave kept:keep spent:spend paid:pay said:say saw:see seen:see gave:give \
  given:give told:tell bought:buy brought:bring sold:sell shown:show";

/// Words the suffix rules would mangle into a different word (`news` is not `new`).
const UNSTEMMED: &[&str] = &[
  "news", "canvas", "alias", "always", "series", "species", "lens",
];

/// [`IRREGULAR`] as a map.
fn irregular() -> &'static HashMap<&'static str, &'static str> {
  static IRREGULAR_MAP: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
  IRREGULAR_MAP.get_or_init(|| {
    IRREGULAR
      .split_whitespace()
      .filter_map(|pair| pair.split_once(':'))
      .collect()
  })
}

fn is_vowel(b: u8) -> bool {
  matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// A small suffix stemmer in the spirit of Porter's step 1 and 5: plurals, `-ed`, `-ing`, a
/// final `-y` and a final silent `-e`, so `schedule`, `schedules`, `scheduled` and `scheduling`
/// all become `schedul`. It only has to be consistent, not pretty: index and query use it alike.
pub(super) fn stem(word: &str) -> String {
  let n = word.len();
  if !word.is_ascii() || UNSTEMMED.contains(&word) {
    return word.to_string();
  }
  let mut w = irregular().get(word).copied().unwrap_or(word);
  if n <= 3 && w == word {
    return word.to_string();
  }
  let mut suffix_i = false;
  // Plurals.
  if w.ends_with("sses") || w.ends_with("xes") || w.ends_with("ches") || w.ends_with("shes") {
    w = &w[..w.len() - 2];
  } else if w.len() > 4 && w.ends_with("ies") {
    w = &w[..w.len() - 3];
    suffix_i = true;
  } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
    w = &w[..w.len() - 1];
  }
  // `-ed` and `-ing`, when what is left still has a vowel (`string` and `need` stay whole).
  if !suffix_i {
    if w.len() > 4 && w.ends_with("ied") {
      w = &w[..w.len() - 3];
      suffix_i = true;
    } else if !w.ends_with("eed") {
      for suffix in ["ing", "ed"] {
        if let Some(base) = w.strip_suffix(suffix)
          && base.len() >= 3
          && base.bytes().any(is_vowel)
        {
          w = undouble(base);
          break;
        }
      }
    }
  }
  let mut out = String::with_capacity(w.len() + 1);
  out.push_str(w);
  if suffix_i {
    // `replies` → `repli` (like `reply`), but `tries` → `try` (too short for the `-y` rule).
    out.push(if w.len() <= 2 { 'y' } else { 'i' });
    return out;
  }
  let bytes = out.as_bytes();
  let len = bytes.len();
  if len > 3 {
    // `reply`/`replies`/`replied` → `repli`; `key` keeps its `y`.
    if bytes[len - 1] == b'y' && !is_vowel(bytes[len - 2]) {
      out.pop();
      out.push('i');
    } else if bytes[len - 1] == b'e' && bytes[len - 2] != b'e' {
      out.pop();
    }
  }
  out
}

/// `running` → `run`, `stopped` → `stop`, but `added` → `add` and `calling` → `call`.
fn undouble(base: &str) -> &str {
  let bytes = base.as_bytes();
  let n = bytes.len();
  if n >= 4 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z') {
    &base[..n - 1]
  } else {
    base
  }
}
