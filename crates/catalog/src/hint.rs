//! Bounded TypeScript-style hints of a tool's input and output schemas, as OpenClaw's Tool Search
//! shows them in its hits (`input`, `output`): a port of OpenClaw 2026.9.6's
//! `compactToolInputHint` and `compactToolOutputHint` (the compact paths only, as the gateway's
//! published build has them), writing the same text for the same schema.
//!
//! JavaScript's semantics are kept where they show in the text: lengths are UTF-16 code units,
//! numbers are written as `Number.prototype.toString` writes them, strings as `JSON.stringify`
//! does, a `properties` object is walked in `for…in` order (array-index keys first, ascending),
//! and names are ordered by [`locale_compare`], a port of `String.prototype.localeCompare`'s
//! ICU root collation that is exact for ASCII (see there for other scripts).
//!
//! Cost is bounded as upstream bounds it (an `enum` or union is refused by its length before any
//! of it is rendered, depth and property caps), plus a work budget upstream does not have:
//! a hostile schema whose walk would pass [`WORK_BUDGET`] steps (type arrays over wide objects,
//! each visited again per type) gets `unknown` instead of seconds of work.

use serde_json::{Map, Value};
use std::cell::Cell;
use std::cmp::Ordering;

const MAX_COMPACT_INPUT_HINT_CHARS: usize = 300;
const MAX_COMPACT_OUTPUT_HINT_CHARS: usize = 800;
const MAX_COMPACT_INPUT_SCHEMA_PROPERTIES: usize = 16;
const MAX_COMPACT_OUTPUT_SCHEMA_PROPERTIES: usize = 22;
const MAX_COMPACT_SCHEMA_PROPERTY_NAME_CHARS: usize = 128;
const MAX_COMPACT_INPUT_DEPTH: usize = 4;
const MAX_COMPACT_OUTPUT_DEPTH: usize = 6;
const MAX_COMPACT_UNION_TYPES: usize = 5;
const MAX_COMPACT_ENUM_VALUES: usize = 8;
const MAX_COMPACT_ENUM_CHARS: usize = 96;
/// Steps (schema nodes and property keys read) one hint may take; past them it is `unknown`.
pub const WORK_BUDGET: usize = 250_000;

const NUMERIC_INPUT_BOUNDS: [(&str, &str); 4] = [
  ("minimum", ">="),
  ("maximum", "<="),
  ("exclusiveMinimum", ">"),
  ("exclusiveMaximum", "<"),
];
const UNSUPPORTED_SHAPE_KEYWORDS: [&str; 13] = [
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "allOf",
  "patternProperties",
  "unevaluatedProperties",
  "dependentSchemas",
  "dependencies",
  "if",
  "then",
  "else",
  "prefixItems",
  "unevaluatedItems",
];
const UNION_SIBLINGS: [&str; 7] = [
  "const",
  "enum",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
];

struct Limits {
  max_chars: usize,
  max_depth: usize,
  max_properties: usize,
  numeric_input_constraints: bool,
  work: Cell<usize>,
}

impl Limits {
  fn input() -> Limits {
    Limits {
      max_chars: MAX_COMPACT_INPUT_HINT_CHARS,
      max_depth: MAX_COMPACT_INPUT_DEPTH,
      max_properties: MAX_COMPACT_INPUT_SCHEMA_PROPERTIES,
      numeric_input_constraints: true,
      work: Cell::new(0),
    }
  }

  fn output() -> Limits {
    Limits {
      max_chars: MAX_COMPACT_OUTPUT_HINT_CHARS,
      max_depth: MAX_COMPACT_OUTPUT_DEPTH,
      max_properties: MAX_COMPACT_OUTPUT_SCHEMA_PROPERTIES,
      numeric_input_constraints: false,
      work: Cell::new(0),
    }
  }

  /// Counts `steps`; false once the budget is spent (and from then on).
  fn spend(&self, steps: usize) -> bool {
    let spent = self.work.get().saturating_add(steps);
    self.work.set(spent);
    spent <= WORK_BUDGET
  }

  fn exhausted(&self) -> bool {
    self.work.get() > WORK_BUDGET
  }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Hint {
  text: String,
  complete: bool,
}

fn unknown() -> Hint {
  Hint {
    text: "unknown".into(),
    complete: false,
  }
}

fn complete(text: impl Into<String>) -> Hint {
  Hint {
    text: text.into(),
    complete: true,
  }
}

/// JavaScript's `string.length`: UTF-16 code units.
fn js_len(text: &str) -> usize {
  if text.is_ascii() {
    text.len()
  } else {
    text.chars().map(char::len_utf16).sum()
  }
}

/// `JSON.stringify` of a string (serde_json escapes exactly the same characters, lowercase hex).
fn js_string(text: &str) -> String {
  serde_json::to_string(text).unwrap_or_default()
}

/// `/^[A-Za-z_$][A-Za-z0-9_$]*$/u`.
fn is_identifier(key: &str) -> bool {
  let mut bytes = key.bytes();
  bytes
    .next()
    .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
    && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// `Number.prototype.toString()` (and `JSON.stringify`) of a finite number: the shortest digits
/// that read back as it, in ECMAScript's layout (`1e21`, `1.5e-7`, `0.000001`, `-0` as `0`).
fn js_number(value: f64) -> String {
  if value == 0.0 {
    return "0".into();
  }
  if value.is_nan() {
    return "NaN".into();
  }
  if value.is_infinite() {
    return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
  }
  let sign = if value < 0.0 { "-" } else { "" };
  // Rust's `{:e}` writes the shortest round-trip digits: `d[.ddd]e<exp>`.
  let exponential = format!("{:e}", value.abs());
  let (mantissa, exp) = exponential.split_once('e').unwrap_or((&exponential, "0"));
  let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
  let k = digits.len() as i64;
  let n = exp.parse::<i64>().unwrap_or(0) + 1;
  let body = if k <= n && n <= 21 {
    format!("{digits}{}", "0".repeat((n - k) as usize))
  } else if 0 < n && n <= 21 {
    format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
  } else if -6 < n && n <= 0 {
    format!("0.{}{digits}", "0".repeat((-n) as usize))
  } else {
    let e = n - 1;
    let e = if e < 0 {
      format!("-{}", -e)
    } else {
      format!("+{e}")
    };
    if k == 1 {
      format!("{digits}e{e}")
    } else {
      format!("{}.{}e{e}", &digits[..1], &digits[1..])
    }
  };
  format!("{sign}{body}")
}

/// ICU root collation's primary weight of an ASCII character or a Latin-1 currency sign (`None`:
/// ignorable, as the C0 controls other than `\t\n\v\f\r` and DEL are, or not one of those), in the
/// order `localeCompare` sorts them: whitespace, punctuation, symbols, currency, digits, letters
/// (case-insensitive at this level).
fn ascii_primary(c: char) -> Option<u16> {
  // Then currency (`¤¢` before `$`, `£¥€` after it), digits and letters.
  const ORDER: &[u8] = b"\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~";
  const TABLE: [u16; 128] = {
    let mut table = [u16::MAX; 128];
    let mut at = 0;
    while at < ORDER.len() {
      table[ORDER[at] as usize] = at as u16;
      at += 1;
    }
    let currency = ORDER.len() as u16;
    table[b'$' as usize] = currency + 2;
    let mut digit = 0;
    while digit < 10 {
      table[(b'0' + digit) as usize] = currency + 6 + digit as u16;
      digit += 1;
    }
    let mut letter = 0;
    while letter < 26 {
      table[(b'a' + letter) as usize] = currency + 16 + letter as u16;
      table[(b'A' + letter) as usize] = currency + 16 + letter as u16;
      letter += 1;
    }
    table
  };
  let currency = ORDER.len() as u16;
  match c {
    '¤' => Some(currency),
    '¢' => Some(currency + 1),
    '£' => Some(currency + 3),
    '¥' => Some(currency + 4),
    '€' => Some(currency + 5),
    _ if c.is_ascii() => Some(TABLE[c as usize]).filter(|&w| w != u16::MAX),
    _ => None,
  }
}

/// A Latin-1 letter with a diacritic as ICU collates it: its base letter, and its accent's rank
/// at the secondary level (DUCET's order: acute, grave, circumflex, tilde, diaeresis, ring,
/// cedilla).
fn latin1_letter(c: char) -> Option<(u8, u8)> {
  const BASES: &str = "AAAAAACEEEEIIIINOOOOOUUUUY";
  const LETTERS: &str = "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝ";
  // Accents of LETTERS, ranked: 1 acute, 2 grave, 3 circumflex, 4 tilde, 5 diaeresis, 6 ring,
  // 7 cedilla.
  const ACCENTS: [u8; 26] = [
    2, 1, 3, 4, 5, 6, 7, 2, 1, 3, 5, 2, 1, 3, 5, 4, 2, 1, 3, 4, 5, 2, 1, 3, 5, 1,
  ];
  if c == 'ÿ' {
    return Some((b'y', 5));
  }
  let upper = c.to_uppercase().next().filter(|_| c.is_alphabetic())?;
  let at = LETTERS.chars().position(|l| l == upper)?;
  let base = BASES.as_bytes()[at];
  Some((
    if c.is_lowercase() {
      base.to_ascii_lowercase()
    } else {
      base
    },
    ACCENTS[at],
  ))
}

/// A character's collation elements for [`locale_compare`], (primary, secondary, tertiary) each:
/// none when ignorable; tertiary 0 lowercase or caseless, 1 uppercase, 2 `ß`'s (which is `ss`).
fn collation(c: char) -> impl Iterator<Item = (u32, u8, u8)> {
  let one = |element| [Some(element), None];
  let elements = if c.is_ascii() || "¤¢£¥€".contains(c) {
    match ascii_primary(c) {
      Some(p) => one((u32::from(p), 0, u8::from(c.is_ascii_uppercase()))),
      None => [None, None],
    }
  } else if c == 'ß' {
    let s = (u32::from(ascii_primary('s').unwrap_or(0)), 0, 2);
    [Some(s), Some(s)]
  } else if let Some((base, accent)) = latin1_letter(c) {
    let primary = ascii_primary(char::from(base)).map_or(0, u32::from);
    one((primary, accent, u8::from(base.is_ascii_uppercase())))
  } else {
    one((0x1_0000 + c as u32, 0, 0))
  };
  elements.into_iter().flatten()
}

/// `a.localeCompare(b)` as V8 with ICU answers it in an English or root locale (default
/// strength: tertiary), for the names of schema properties.
///
/// Exact for ASCII: ignorable controls are skipped; primary order is whitespace, then
/// punctuation (`_` first), symbols, digits, then letters case-insensitively; on a primary tie,
/// accents decide (secondary), then the first position where case differs, lowercase first;
/// otherwise the strings are equal (0), as ICU says of `"a\u{1}"` and `"a"`. Latin-1 letters
/// with an acute, grave, circumflex, tilde, diaeresis, ring or cedilla sort with their base
/// letter, `ß` as `ss`, and `¤¢£¥€` among the currency signs, as ICU sorts them. Other
/// characters are not collated as ICU does (other scripts, symbols and ligatures in their own
/// places, other accents): each sorts after every ASCII letter, by code point, and differs at
/// the primary level only; and `ß` against an uppercase `SS` may differ in case order. Checked
/// against V8's own over 20,000 random pairs of such strings: no ASCII pair differed.
fn locale_compare(a: &str, b: &str) -> Ordering {
  fn level(s: &str, pick: fn((u32, u8, u8)) -> u32) -> impl Iterator<Item = u32> + '_ {
    s.chars().flat_map(collation).map(pick)
  }
  level(a, |e| e.0)
    .cmp(level(b, |e| e.0))
    .then_with(|| level(a, |e| u32::from(e.1)).cmp(level(b, |e| u32::from(e.1))))
    .then_with(|| level(a, |e| u32::from(e.2)).cmp(level(b, |e| u32::from(e.2))))
}

/// `insertLexicallyBounded`: `value` into the sorted `values`, keeping at most `limit`.
fn insert_lexically_bounded<'a>(values: &mut Vec<&'a str>, value: &'a str, limit: usize) {
  if limit == 0 {
    return;
  }
  let low = values.partition_point(|v| locale_compare(v, value) == Ordering::Less);
  if low >= limit {
    return;
  }
  values.insert(low, value);
  if values.len() > limit {
    values.pop();
  }
}

/// Whether `key` is an array index, which JavaScript objects enumerate first, ascending.
fn array_index(key: &str) -> Option<u32> {
  let b = key.as_bytes();
  if b.is_empty()
    || b.len() > 10
    || (b[0] == b'0' && b.len() > 1)
    || !b.iter().all(u8::is_ascii_digit)
  {
    return None;
  }
  key
    .parse::<u64>()
    .ok()
    .filter(|&n| n < u64::from(u32::MAX))
    .map(|n| n as u32)
}

/// The keys of `map` in the order JavaScript's `for…in` gives them (`serde_json` keeps source
/// order here: its `preserve_order` feature is on).
fn js_keys(map: &Map<String, Value>) -> Vec<&str> {
  let mut indices: Vec<(u32, &str)> = Vec::new();
  let mut others = Vec::with_capacity(map.len());
  for key in map.keys() {
    match array_index(key) {
      Some(n) => indices.push((n, key)),
      None => others.push(key.as_str()),
    }
  }
  if indices.is_empty() {
    return others;
  }
  indices.sort_unstable_by_key(|&(n, _)| n);
  indices.into_iter().map(|(_, k)| k).chain(others).collect()
}

fn render_primitive(value: &Value) -> Option<String> {
  match value {
    Value::Null => Some("null".into()),
    Value::Bool(b) => Some(b.to_string()),
    Value::String(s) => Some(js_string(s)),
    Value::Number(n) => n.as_f64().filter(|f| f.is_finite()).map(js_number),
    _ => None,
  }
}

fn unique_join(texts: impl IntoIterator<Item = String>) -> String {
  let mut seen: Vec<String> = Vec::new();
  for text in texts {
    if !seen.contains(&text) {
      seen.push(text);
    }
  }
  seen.join(" | ")
}

fn compact_literal_union(values: &[&Value]) -> Option<Hint> {
  if values.is_empty() || values.len() > MAX_COMPACT_ENUM_VALUES {
    return None;
  }
  let rendered: Option<Vec<String>> = values.iter().map(|v| render_primitive(v)).collect();
  let result = unique_join(rendered?);
  (js_len(&result) <= MAX_COMPACT_ENUM_CHARS).then(|| complete(result))
}

fn has_unsupported_shape(map: &Map<String, Value>) -> bool {
  UNSUPPORTED_SHAPE_KEYWORDS
    .iter()
    .any(|k| map.contains_key(*k))
}

/// A schema object as the hint functions see it: JavaScript spreads copies of it with another
/// `type` (`{ ...schema, type }`) or `nullable: false`; here those are views, not copies.
#[derive(Clone)]
struct View<'a> {
  map: &'a Map<String, Value>,
  ty: Ty<'a>,
  nullable_off: bool,
}

#[derive(Clone)]
enum Ty<'a> {
  /// The map's own `type`.
  Own,
  One(&'a str),
  /// A normalised nullable type: its distinct strings and `null`.
  Many(Vec<&'a str>),
  /// More distinct strings than a type array may have: `unknown` when the type is read.
  TooMany,
}

/// The effective `type` of a view.
enum TypeValue<'a> {
  Str(&'a str),
  Array(Vec<Option<&'a str>>),
  TooMany,
  Other,
}

impl<'a> View<'a> {
  fn of(map: &'a Map<String, Value>) -> View<'a> {
    View {
      map,
      ty: Ty::Own,
      nullable_off: false,
    }
  }

  fn get(&self, key: &str) -> Option<&'a Value> {
    self.map.get(key)
  }

  fn type_value(&self) -> TypeValue<'a> {
    match &self.ty {
      Ty::One(t) => TypeValue::Str(t),
      Ty::Many(ts) => TypeValue::Array(ts.iter().map(|t| Some(*t)).collect()),
      Ty::TooMany => TypeValue::TooMany,
      Ty::Own => match self.map.get("type") {
        Some(Value::String(t)) => TypeValue::Str(t),
        // Only short arrays are read whole; a longer one is `unknown` wherever it is read, but
        // whether its items are all strings still decides nullable's normalisation.
        Some(Value::Array(items)) if items.len() <= MAX_COMPACT_UNION_TYPES + 1 => {
          TypeValue::Array(items.iter().map(Value::as_str).collect())
        }
        Some(Value::Array(_)) => TypeValue::TooMany,
        _ => TypeValue::Other,
      },
    }
  }
}

/// `normalizeNullableSchemaForHint`: `None` for `unknown`, else the view to hint.
fn normalize_nullable<'a>(view: &View<'a>) -> Option<View<'a>> {
  if view.nullable_off {
    return Some(view.clone());
  }
  let Some(nullable) = view.get("nullable") else {
    return Some(view.clone());
  };
  let Value::Bool(nullable) = nullable else {
    return None;
  };
  // `types`: the string, or the array when every item is a string.
  let types: Vec<&'a str> = match view.type_value() {
    TypeValue::Str(t) => vec![t],
    TypeValue::Array(items) => items.into_iter().collect::<Option<Vec<_>>>()?,
    TypeValue::TooMany => {
      // A long array (own `type` only): every item a string, or no hint.
      let Some(Value::Array(items)) = view.map.get("type") else {
        return None;
      };
      let mut distinct: Vec<&'a str> = Vec::new();
      for item in items {
        let t = item.as_str()?;
        if distinct.len() <= MAX_COMPACT_UNION_TYPES && !distinct.contains(&t) {
          distinct.push(t);
        }
      }
      if !*nullable {
        return Some(view.clone());
      }
      if distinct.len() > MAX_COMPACT_UNION_TYPES {
        return Some(View {
          ty: Ty::TooMany,
          nullable_off: true,
          ..view.clone()
        });
      }
      distinct
    }
    TypeValue::Other => return None,
  };
  if !*nullable {
    return Some(view.clone());
  }
  let mut distinct: Vec<&'a str> = Vec::new();
  for t in types.into_iter().chain(["null"]) {
    if !distinct.contains(&t) {
      distinct.push(t);
    }
  }
  Some(View {
    ty: Ty::Many(distinct),
    nullable_off: true,
    ..view.clone()
  })
}

fn compact_schema_type(schema: Option<&Value>, depth: usize, limits: &Limits) -> Hint {
  match schema {
    Some(Value::Object(map)) => compact_view(&View::of(map), depth, limits),
    _ => {
      limits.spend(1);
      unknown()
    }
  }
}

fn compact_view(schema: &View<'_>, depth: usize, limits: &Limits) -> Hint {
  if !limits.spend(1) {
    return unknown();
  }
  if schema.map.is_empty() {
    return complete("unknown");
  }
  if depth >= limits.max_depth {
    return unknown();
  }
  let Some(normalized) = normalize_nullable(schema) else {
    return unknown();
  };
  if normalized.nullable_off && !schema.nullable_off {
    return compact_view(&normalized, depth, limits);
  }
  let finish = |hint: Hint| {
    if hint.complete && has_unsupported_shape(schema.map) {
      Hint {
        complete: false,
        ..hint
      }
    } else {
      hint
    }
  };
  if let Some(union) = compact_schema_union(schema, depth, limits) {
    return finish(union);
  }
  if let Some(literal) = schema.get("const").and_then(render_primitive) {
    return finish(complete(literal));
  }
  if let Some(Value::Array(values)) = schema.get("enum")
    && values.len() <= MAX_COMPACT_ENUM_VALUES
  {
    let values: Vec<&Value> = values.iter().collect();
    if let Some(hint) = compact_literal_union(&values) {
      return finish(hint);
    }
  }
  let types = match schema.type_value() {
    TypeValue::Str(t) => t,
    TypeValue::TooMany | TypeValue::Other => return unknown(),
    TypeValue::Array(items) => {
      if items.is_empty() || items.len() > MAX_COMPACT_UNION_TYPES {
        return unknown();
      }
      let Some(items) = items.into_iter().collect::<Option<Vec<_>>>() else {
        return unknown();
      };
      let mut rendered = Vec::with_capacity(items.len());
      for t in items {
        let variant = View {
          ty: Ty::One(t),
          ..schema.clone()
        };
        let hint = compact_view(&variant, depth + 1, limits);
        rendered.push(hint);
      }
      if rendered.iter().any(|h| !h.complete) || limits.exhausted() {
        return unknown();
      }
      return finish(complete(unique_join(rendered.into_iter().map(|h| h.text))));
    }
  };
  match types {
    "integer" | "number" => {
      if !limits.numeric_input_constraints {
        return finish(complete("number"));
      }
      let mut constraints: Vec<String> = Vec::new();
      if types == "integer" {
        constraints.push("integer".into());
      }
      for (key, operator) in NUMERIC_INPUT_BOUNDS {
        let Some(bound) = schema.get(key) else {
          continue;
        };
        let Some(bound) = bound.as_f64().filter(|b| b.is_finite()) else {
          return unknown();
        };
        constraints.push(format!("{operator} {}", js_number(bound)));
      }
      if constraints.is_empty() {
        finish(complete("number"))
      } else {
        finish(complete(format!("number /* {} */", constraints.join(", "))))
      }
    }
    "array" => {
      let item = compact_schema_type(schema.get("items"), depth + 1, limits);
      finish(Hint {
        text: format!("Array<{}>", item.text),
        complete: item.complete,
      })
    }
    "object" => finish(compact_object_hint(schema.map, depth + 1, limits)),
    "string" | "boolean" | "null" => finish(complete(types)),
    _ => unknown(),
  }
}

fn compact_schema_union(schema: &View<'_>, depth: usize, limits: &Limits) -> Option<Hint> {
  let any_of = schema.get("anyOf");
  let one_of = schema.get("oneOf");
  let variants = match (any_of, one_of) {
    (None, None) => return None,
    (Some(_), Some(_)) => return Some(unknown()),
    (Some(v), None) | (None, Some(v)) => v,
  };
  let Value::Array(variants) = variants else {
    return Some(unknown());
  };
  if variants.is_empty() || variants.len() > MAX_COMPACT_ENUM_VALUES {
    return Some(unknown());
  }
  if UNION_SIBLINGS.iter().any(|k| schema.map.contains_key(*k)) {
    return Some(unknown());
  }
  let literals: Option<Vec<&Value>> = variants
    .iter()
    .map(|variant| match variant {
      Value::Object(v) if !has_unsupported_shape(v) => v.get("const"),
      _ => None,
    })
    .collect();
  if let Some(literals) = literals
    && let Some(hint) = compact_literal_union(&literals)
  {
    return Some(hint);
  }
  if variants.len() > MAX_COMPACT_UNION_TYPES {
    return Some(unknown());
  }
  let rendered: Vec<Hint> = variants
    .iter()
    .map(|v| compact_schema_type(Some(v), depth + 1, limits))
    .collect();
  if rendered.iter().any(|h| !h.complete) || limits.exhausted() {
    return Some(unknown());
  }
  Some(complete(unique_join(rendered.into_iter().map(|h| h.text))))
}

fn compact_object_hint(schema: &Map<String, Value>, depth: usize, limits: &Limits) -> Hint {
  let no_required = Vec::new();
  let required_values = match schema.get("required") {
    Some(Value::Array(values)) => values,
    _ => &no_required,
  };
  let additional = schema.get("additionalProperties");
  let additional_false = matches!(additional, Some(Value::Bool(false)));
  let Some(Value::Object(properties)) = schema.get("properties") else {
    limits.spend(required_values.len());
    let open =
      required_values.len() > limits.max_properties || required_values.iter().any(Value::is_string);
    return if !open && additional_false {
      complete("{}")
    } else {
      Hint {
        text: "{ ... }".into(),
        complete: false,
      }
    };
  };
  if !limits.spend(required_values.len() + properties.len()) {
    return unknown();
  }
  let invalid_required = required_values.len() <= limits.max_properties
    && required_values.iter().any(|v| !v.is_string());
  let mut required: Vec<&str> = Vec::new();
  for value in required_values.iter().take(limits.max_properties) {
    if let Some(key) = value.as_str()
      && !required.contains(&key)
    {
      required.push(key);
    }
  }
  let mut required_keys: Vec<&str> = Vec::new();
  let mut missing_required = false;
  for &key in &required {
    if js_len(key) > MAX_COMPACT_SCHEMA_PROPERTY_NAME_CHARS || !properties.contains_key(key) {
      missing_required = true;
      continue;
    }
    insert_lexically_bounded(&mut required_keys, key, limits.max_properties);
  }
  let optional_limit = limits.max_properties - required_keys.len();
  let mut optional_keys: Vec<&str> = Vec::new();
  let mut optional_count = 0;
  let mut oversized_optional_key = false;
  for key in js_keys(properties) {
    if required.contains(&key) {
      continue;
    }
    optional_count += 1;
    if js_len(key) > MAX_COMPACT_SCHEMA_PROPERTY_NAME_CHARS {
      oversized_optional_key = true;
      continue;
    }
    insert_lexically_bounded(&mut optional_keys, key, optional_limit);
  }
  let structurally_incomplete = required_values.len() > limits.max_properties
    || invalid_required
    || missing_required
    || oversized_optional_key
    || optional_count > optional_limit;
  let mut omitted = structurally_incomplete
    || matches!(additional, Some(Value::Bool(true)) | Some(Value::Object(_)));
  let mut complete = !structurally_incomplete && additional_false;
  let mut body = String::new();
  let keys = required_keys.len() + optional_keys.len();
  for key in required_keys.into_iter().chain(optional_keys) {
    let name = if is_identifier(key) {
      key.to_string()
    } else {
      js_string(key)
    };
    let property = compact_schema_type(properties.get(key), depth, limits);
    complete &= property.complete;
    let optional = if required.contains(&key) { "" } else { "?" };
    let part = format!("{name}{optional}: {}", property.text);
    let next = if body.is_empty() {
      part
    } else {
      format!("{body}; {part}")
    };
    if js_len(&next) + 4 > limits.max_chars {
      omitted = true;
      complete = false;
      break;
    }
    body = next;
  }
  if limits.exhausted() {
    return unknown();
  }
  if body.is_empty() {
    return if keys == 0 && !omitted {
      Hint {
        text: "{}".into(),
        complete,
      }
    } else {
      Hint {
        text: "{ ... }".into(),
        complete: false,
      }
    };
  }
  Hint {
    text: format!("{{ {body}{} }}", if omitted { "; ..." } else { "" }),
    complete,
  }
}

/// `compactToolInputHint`: the input hint of a tool's `parameters` (`unknown` when there is
/// none, it is not an object, or the hint is longer than 300 UTF-16 code units).
pub fn input_hint(schema: Option<&Value>) -> String {
  let Some(Value::Object(map)) = schema else {
    return "unknown".into();
  };
  let limits = Limits::input();
  let hint = if map.get("type").and_then(Value::as_str) == Some("object") {
    limits.spend(1);
    compact_object_hint(map, 0, &limits)
  } else {
    compact_view(&View::of(map), 0, &limits)
  };
  if limits.exhausted() || js_len(&hint.text) > limits.max_chars {
    "unknown".into()
  } else {
    hint.text
  }
}

/// `compactToolOutputHint`: the output hint of a trusted tool's `outputSchema`, only when it is
/// complete and at most 800 UTF-16 code units.
pub fn output_hint(schema: Option<&Value>) -> Option<String> {
  let limits = Limits::output();
  let hint = compact_schema_type(schema, 0, &limits);
  (hint.complete && !limits.exhausted() && js_len(&hint.text) <= limits.max_chars)
    .then_some(hint.text)
}

#[cfg(test)]
mod tests {
  //! Golden strings from OpenClaw 2026.9.6's own `compactToolInputHint` and
  //! `compactToolOutputHint` (`dist/tool-contract-error-*.mjs`, run under Node 24) for the same
  //! schemas; `__test__/tool-search-hints.spec.ts` compares a generated corpus with them.
  use super::*;
  use serde_json::json;

  fn object(properties: Value, extra: Value) -> Value {
    let mut schema = json!({ "type": "object", "properties": properties });
    if let (Some(schema), Value::Object(extra)) = (schema.as_object_mut(), extra) {
      schema.extend(extra);
    }
    schema
  }

  fn hints(schema: &Value) -> (String, Option<String>) {
    (input_hint(Some(schema)), output_hint(Some(schema)))
  }

  fn assert_hints(schema: Value, input: &str, output: Option<&str>) {
    assert_eq!(
      hints(&schema),
      (input.to_string(), output.map(str::to_string)),
      "{schema}"
    );
  }

  fn deep(levels: usize) -> Value {
    let mut schema = json!({ "type": "string" });
    for _ in 0..levels {
      schema = object(
        json!({ "a": schema }),
        json!({ "required": ["a"], "additionalProperties": false }),
      );
    }
    schema
  }

  fn many(n: usize) -> Value {
    Value::Object(
      (0..n)
        .map(|i| (format!("p{i:02}"), json!({ "type": "string" })))
        .collect(),
    )
  }

  #[test]
  fn the_documented_example() {
    assert_hints(
      object(
        json!({ "id": { "type": "string" }, "mode": { "type": "string", "enum": ["drip", "flood"] } }),
        json!({ "required": ["id"] }),
      ),
      r#"{ id: string; mode?: "drip" | "flood" }"#,
      None,
    );
  }

  #[test]
  fn nested_objects_to_the_depth_limits() {
    let nested = |n: usize| format!("{}string{}", "{ a: ".repeat(n), " }".repeat(n));
    assert_hints(deep(3), &nested(3), Some(&nested(3)));
    assert_hints(deep(4), &nested(4), Some(&nested(4)));
    assert_hints(
      deep(5),
      "{ a: { a: { a: { a: { a: unknown } } } } }",
      Some(&nested(5)),
    );
    assert_hints(deep(7), "{ a: { a: { a: { a: { a: unknown } } } } }", None);
  }

  #[test]
  fn arrays_literals_unions_and_nullable() {
    assert_hints(
      object(
        json!({ "tags": { "type": "array", "items": { "type": "string" } },
                "grid": { "type": "array", "items": { "type": "array", "items": { "type": "number" } } },
                "any": { "type": "array" } }),
        json!({}),
      ),
      "{ any?: Array<unknown>; grid?: Array<Array<number>>; tags?: Array<string> }",
      None,
    );
    assert_hints(
      object(
        json!({ "e": { "enum": [1, "two", true, null] }, "c": { "const": "x" },
                "a": { "anyOf": [{ "type": "string" }, { "type": "number" }] },
                "o": { "oneOf": [{ "const": "a" }, { "const": "b" }] },
                "both": { "anyOf": [{ "type": "string" }], "oneOf": [{ "type": "string" }] },
                "big": { "enum": [0, 1, 2, 3, 4, 5, 6, 7, 8] } }),
        json!({}),
      ),
      r#"{ a?: string | number; big?: unknown; both?: unknown; c?: "x"; e?: 1 | "two" | true | null; o?: "a" | "b" }"#,
      None,
    );
    assert_hints(
      object(
        json!({ "n": { "type": "string", "nullable": true },
                "m": { "type": ["integer", "string"], "nullable": true },
                "bad": { "type": "string", "nullable": "yes" },
                "off": { "type": "boolean", "nullable": false } }),
        json!({}),
      ),
      "{ bad?: unknown; m?: number /* integer */ | string | null; n?: string | null; off?: boolean }",
      None,
    );
    // Literals are written as JavaScript writes numbers and JSON strings.
    let literals = r#"1 | 0.1 | 0 | 1e+21 | 1e-7 | "q\"" | 9007199254740994"#;
    assert_hints(
      json!({ "enum": [1.0, 0.1, -0.0, 1e21, 1e-7, "q\"", 9_007_199_254_740_994_u64] }),
      literals,
      Some(literals),
    );
  }

  #[test]
  fn numeric_bounds_and_integers() {
    assert_hints(
      object(
        json!({ "i": { "type": "integer", "minimum": 1, "maximum": 100 },
                "f": { "type": "number", "exclusiveMinimum": 0.1, "exclusiveMaximum": 1e21 },
                "z": { "type": "number", "minimum": -0.0, "maximum": 1.0 },
                "t": { "type": "number", "minimum": 1e-7, "maximum": 123_456_789_012_345_680_000.0 },
                "s": { "type": "number", "minimum": "ten" } }),
        json!({}),
      ),
      "{ f?: number /* > 0.1, < 1e+21 */; i?: number /* integer, >= 1, <= 100 */; s?: unknown; t?: number /* >= 1e-7, <= 123456789012345680000 */; z?: number /* >= 0, <= 1 */ }",
      None,
    );
    for (value, text) in [
      (1e21, "1e+21"),
      (1e20, "100000000000000000000"),
      (0.000001, "0.000001"),
      (1e-7, "1e-7"),
      (-1.5e-9, "-1.5e-9"),
      (1.0 / 3.0, "0.3333333333333333"),
      (-0.0, "0"),
      (123.456, "123.456"),
      (5e-324, "5e-324"),
      (f64::MAX, "1.7976931348623157e+308"),
    ] {
      assert_eq!(js_number(value), text);
    }
  }

  #[test]
  fn property_caps_and_required_keys() {
    let listed = (0..16)
      .map(|i| format!("p{i:02}?: string"))
      .collect::<Vec<_>>()
      .join("; ");
    assert_hints(
      object(many(17), json!({})),
      &format!("{{ {listed}; ... }}"),
      None,
    );
    let sixteen = format!(
      "{{ p15: string; {} }}",
      (0..15)
        .map(|i| format!("p{i:02}?: string"))
        .collect::<Vec<_>>()
        .join("; ")
    );
    assert_hints(
      object(
        many(16),
        json!({ "required": ["p15"], "additionalProperties": false }),
      ),
      &sixteen,
      Some(&sixteen),
    );
    assert_hints(
      object(
        json!({ "a": { "type": "string" } }),
        json!({ "required": ["a", "b"] }),
      ),
      "{ a: string; ... }",
      None,
    );
  }

  #[test]
  fn names_are_ordered_as_locale_compare_orders_them_and_quoted_when_not_identifiers() {
    let names = [
      "b", "B", "a_b", "ab", "aB", "Ab", "_x", "x1", "x10", "x2", "X1", "10", "2", "a-b", "a b",
      "$d",
    ];
    let properties: Map<String, Value> = names
      .iter()
      .map(|n| (n.to_string(), json!({ "type": "boolean" })))
      .collect();
    assert_hints(
      object(Value::Object(properties), json!({})),
      r#"{ _x?: boolean; $d?: boolean; "10"?: boolean; "2"?: boolean; "a b"?: boolean; a_b?: boolean; "a-b"?: boolean; ab?: boolean; aB?: boolean; Ab?: boolean; b?: boolean; B?: boolean; x1?: boolean; X1?: boolean; x10?: boolean; x2?: boolean }"#,
      None,
    );
    assert_hints(
      object(
        json!({ "with space": { "type": "string" }, "quote\"d": { "type": "string" },
                "new\nline": { "type": "string" }, "émoji": { "type": "string" }, "1st": { "type": "string" } }),
        json!({ "required": ["with space"] }),
      ),
      r#"{ "with space": string; "1st"?: string; "émoji"?: string; "new\nline"?: string; "quote\"d"?: string }"#,
      None,
    );
    assert_eq!(locale_compare("a\u{1}", "a"), Ordering::Equal);
    assert_eq!(locale_compare("é", "e"), Ordering::Greater);
    assert_eq!(locale_compare("é", "f"), Ordering::Less);
    assert_eq!(locale_compare("cost€", "costa"), Ordering::Less);
    assert_eq!(locale_compare("¢", "$"), Ordering::Less);
    assert_eq!(locale_compare("ß", "sS"), Ordering::Greater);
    assert_eq!(locale_compare("ßa", "ssb"), Ordering::Less);
  }

  #[test]
  fn additional_properties_and_empty_or_non_object_schemas() {
    let a = json!({ "a": { "type": "string" } });
    assert_hints(
      object(a.clone(), json!({ "additionalProperties": true })),
      "{ a?: string; ... }",
      None,
    );
    assert_hints(
      object(
        a.clone(),
        json!({ "required": ["a"], "additionalProperties": false }),
      ),
      "{ a: string }",
      Some("{ a: string }"),
    );
    assert_hints(
      object(a, json!({ "additionalProperties": { "type": "number" } })),
      "{ a?: string; ... }",
      None,
    );
    assert_hints(json!({}), "unknown", Some("unknown"));
    assert_hints(json!({ "type": "object" }), "{ ... }", None);
    assert_hints(
      json!({ "type": "object", "additionalProperties": false }),
      "{}",
      Some("{}"),
    );
    assert_hints(
      json!({ "type": "object", "required": ["a"] }),
      "{ ... }",
      None,
    );
    assert_hints(json!({ "type": "string" }), "string", Some("string"));
    assert_hints(json!(["string"]), "unknown", None);
    assert_eq!(input_hint(None), "unknown");
    assert_eq!(output_hint(None), None);
  }

  #[test]
  fn oversized_hints_are_unknown_or_omitted() {
    let closed = |k: &str| {
      object(
        Value::Object(
          (0..8)
            .map(|i| (format!("{k}_field_{i}"), json!({ "type": "string" })))
            .collect(),
        ),
        json!({ "additionalProperties": false }),
      )
    };
    let union: Vec<Value> = ["a", "b", "c", "d", "e"]
      .iter()
      .map(|k| closed(k))
      .collect();
    assert_hints(json!({ "anyOf": union }), "unknown", None);
    let wide = object(
      Value::Object(
        (0..12)
          .map(|i| {
            (
              format!("field_{i}"),
              json!({ "enum": ["alpha_value", "beta_value", "gamma_value"] }),
            )
          })
          .collect(),
      ),
      json!({}),
    );
    let values = r#""alpha_value" | "beta_value" | "gamma_value""#;
    let shown = format!(
      "{{ field_0?: {values}; field_1?: {values}; field_10?: {values}; field_11?: {values}; field_2?: {values}; ... }}"
    );
    assert_hints(wide.clone(), &shown, None);
    assert_hints(
      json!({ "type": "array", "items": wide }),
      &format!("Array<{shown}>"),
      None,
    );
  }

  #[test]
  fn output_hints_only_when_complete() {
    let item = object(
      json!({ "id": { "type": "string" }, "n": { "type": "integer", "minimum": 0 } }),
      json!({ "required": ["id"], "additionalProperties": false }),
    );
    assert_hints(
      object(
        json!({ "ok": { "type": "boolean" }, "items": { "type": "array", "items": item } }),
        json!({ "required": ["ok", "items"], "additionalProperties": false }),
      ),
      "{ items: Array<{ id: string; n?: number /* integer, >= 0 */ }>; ok: boolean }",
      Some("{ items: Array<{ id: string; n?: number }>; ok: boolean }"),
    );
    assert_hints(
      object(
        json!({ "ok": { "type": "boolean" } }),
        json!({ "required": ["ok"] }),
      ),
      "{ ok: boolean }",
      None,
    );
    assert_hints(
      object(
        json!({ "ok": { "type": "boolean" }, "x": {}, "r": { "$ref": "#/d" } }),
        json!({ "required": ["ok"], "additionalProperties": false }),
      ),
      "{ ok: boolean; r?: unknown; x?: unknown }",
      None,
    );
    assert_hints(
      object(
        json!({ "r": { "$ref": "#/x" }, "all": { "type": "string", "allOf": [] } }),
        json!({ "additionalProperties": false }),
      ),
      "{ all?: string; r?: unknown }",
      None,
    );
  }

  #[test]
  fn hostile_schemas_are_refused_by_size_not_rendered() {
    let values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
    assert_hints(
      object(
        json!({ "e": { "enum": values } }),
        json!({ "additionalProperties": false }),
      ),
      "{ e?: unknown }",
      None,
    );
    // A type array over a wide object at every level: each type is a visit of the same object,
    // so the walk is cut by its work budget (upstream would walk it all).
    let mut schema = json!({ "type": "string" });
    for _ in 0..6 {
      let mut properties: Map<String, Value> = (0..5_000)
        .map(|i| (format!("k{i}"), json!({ "type": "boolean" })))
        .collect();
      properties.insert("a".into(), schema);
      schema = json!({ "type": ["object", "object", "object", "object", "object"], "properties": properties });
    }
    let started = std::time::Instant::now();
    assert_eq!(hints(&schema), ("unknown".to_string(), None));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
  }
}
