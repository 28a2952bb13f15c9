//! The run-scoped tool catalog: ids, order, exclusions, safe names, search and describe.
//!
//! Built once per `CodeModeRun` from the gateway's effective (already policy-filtered) tools.
//! MCP entries stay in the catalog (exact ids for dispatch) but are hidden from the guest's
//! `ALL_TOOLS` and `tools.*` views; they are reached through `MCP.<server>.<tool>()`.

pub mod building;
pub mod calls;
pub mod hint;
pub mod names;
pub mod search;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use search::{Doc, QueryTruncation, SearchIndex};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
  OpenClaw,
  Mcp,
  Client,
}

impl Source {
  pub fn as_str(self) -> &'static str {
    match self {
      Source::OpenClaw => "openclaw",
      Source::Mcp => "mcp",
      Source::Client => "client",
    }
  }
}

/// What an MCP entry calls on its server (`CatalogTool.mcp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpBinding {
  pub server: String,
  pub tool: String,
  /// `tool`, `resources_list`, `resources_read`, `prompts_list` or `prompts_get`.
  pub operation: String,
}

#[derive(Debug, Clone)]
pub struct CatalogEntry {
  pub id: String,
  pub name: String,
  pub label: Option<String>,
  pub description: String,
  pub source: Source,
  /// `core`, the plugin id, the MCP server or the client app.
  pub source_name: String,
  /// JSON text of the input schema, if the gateway gave one.
  pub parameters: Option<String>,
  /// JSON text of the output schema of an `openclaw` tool, if the gateway gave one (OpenClaw
  /// keeps it for trusted tools only; an MCP or client tool's is not read).
  pub output_schema: Option<String>,
  /// Tool Search's `input` and `output` hints of this entry (made when a hit first shows them).
  pub hints: OnceLock<Hints>,
  pub mcp: Option<McpBinding>,
  /// Position in `Catalog::entries()`: how a nested call names its tool to the JS layer.
  pub index: usize,
}

/// What Tool Search's hits say of a tool's schemas (OpenClaw's `compactToolSearchCatalogEntry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hints {
  /// The TypeScript-style input hint of an `openclaw` tool's `parameters` (`unknown` when it
  /// cannot be written whole within 300 characters); `unknown` for MCP and client tools, whose
  /// schemas are left to `tool_describe`.
  pub input: String,
  /// The output hint of an `openclaw` tool's `outputSchema`, only when it is complete.
  pub output: Option<String>,
}

impl CatalogEntry {
  /// This entry's [`Hints`], made on first use (a search shows a few entries of a catalog
  /// that may hold thousands: only those are parsed again and hinted).
  pub fn hints(&self) -> &Hints {
    self.hints.get_or_init(|| {
      if self.source != Source::OpenClaw {
        return Hints {
          input: "unknown".into(),
          output: None,
        };
      }
      let parse = |text: &Option<String>| {
        text
          .as_deref()
          .and_then(|t| serde_json::from_str::<Value>(t).ok())
      };
      Hints {
        input: hint::input_hint(parse(&self.parameters).as_ref()),
        output: hint::output_hint(parse(&self.output_schema).as_ref()),
      }
    })
  }
}

/// A convenience name that two or more tools normalise to: none of them gets it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameCollision {
  pub name: String,
  pub ids: Vec<String>,
}

/// Counters about how the gateway's list became the catalog (host-only telemetry).
#[derive(Debug, Clone, Default)]
pub struct CatalogStats {
  /// Entries whose id was already taken (the first one wins).
  pub duplicate_tools: u32,
  /// Entries that were not objects with a non-empty string `name` and a known `source`.
  pub invalid_tools: u32,
  /// Control tools left out (`wait`, Tool Search tools, code mode's own exec).
  pub excluded_tools: u32,
  pub name_collisions: Vec<NameCollision>,
}

pub struct Catalog {
  entries: Vec<CatalogEntry>,
  by_id: HashMap<String, usize>,
  /// Indices of the guest-visible (non-MCP) entries, in catalog order.
  guest: Vec<usize>,
  /// `(safe name, entry index)` for every installed `tools.<name>` convenience function.
  safe_names: Vec<(String, usize)>,
  /// Positions in `safe_names`, sorted by name: a cell resolves `tools.<name>` one name at a
  /// time instead of building all of them.
  safe_name_order: Vec<u32>,
  /// `safe_names` as `[[name, id], …]` JSON text (built on first use).
  safe_names_json: OnceLock<String>,
  pub stats: CatalogStats,
  index: OnceLock<SearchIndex>,
  /// Over every entry, MCP included (Tool Search's `search`); unused when there is no MCP entry
  /// (then it is `index`).
  all_index: OnceLock<SearchIndex>,
  all_tools_json: OnceLock<String>,
  /// Entries per source, in `Source` order (every result's telemetry reports them).
  counts: [usize; 3],
}

/// `json` with each escaped lone surrogate (`\ud800`: `JSON.stringify` writes half an emoji
/// so) as `\ufffd`. serde_json refuses them, and one such string must not empty the catalog.
fn lone_surrogates_replaced(json: &str) -> std::borrow::Cow<'_, str> {
  let surrogate = |at: usize| -> Option<u16> {
    let escape = json.get(at..at + 6)?.strip_prefix("\\u")?;
    let unit = u16::from_str_radix(escape, 16).ok()?;
    (0xD800..=0xDFFF).contains(&unit).then_some(unit)
  };
  if !json.contains("\\ud") && !json.contains("\\uD") {
    return json.into();
  }
  let bytes = json.as_bytes();
  let mut out = String::with_capacity(json.len());
  let (mut copied, mut at) = (0, 0);
  while let Some(offset) = bytes
    .get(at..)
    .and_then(|rest| rest.iter().position(|&b| b == b'\\'))
  {
    at += offset;
    match surrogate(at) {
      Some(0xD800..=0xDBFF) if surrogate(at + 6).is_some_and(|low| low >= 0xDC00) => at += 12,
      Some(_) => {
        out.push_str(&json[copied..at]);
        out.push_str("\\ufffd");
        at += 6;
        copied = at;
      }
      // Any other escape is two characters long, or six (`\u` and four digits).
      None => at += 2,
    }
  }
  out.push_str(&json[copied..]);
  out.into()
}

fn text(value: &Value, key: &str) -> Option<String> {
  value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// Whether JavaScript takes the JSON value `value` as true (what OpenClaw's `tool.outputSchema ?`
/// tests).
fn js_truthy(value: &Value) -> bool {
  match value {
    Value::Null | Value::Bool(false) => false,
    Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
    Value::String(s) => !s.is_empty(),
    _ => true,
  }
}

impl Catalog {
  /// Builds the catalog from the gateway's tool list as JSON text (unparseable text is an
  /// empty catalog). Each tool is parsed on its own: one nested past serde_json's recursion limit
  /// (128 levels: a deep schema from an MCP server) is an unusable entry, skipped and counted as
  /// the others are, not the end of every tool of the run.
  pub fn from_json(json: &str) -> Catalog {
    let json = lone_surrogates_replaced(json);
    // A raw value is skipped over without recursion, whatever its depth.
    let tools = serde_json::from_str::<Vec<&RawValue>>(&json)
      .unwrap_or_default()
      .into_iter()
      .map(|tool| serde_json::from_str(tool.get()).unwrap_or(Value::Null))
      .collect();
    Catalog::build(&Value::Array(tools))
  }

  /// Builds the catalog from the gateway's tool list (JSON array; unusable entries are skipped).
  pub fn build(tools: &Value) -> Catalog {
    let mut stats = CatalogStats::default();
    let mut groups: [Vec<CatalogEntry>; 4] = Default::default();
    for tool in tools.as_array().map(Vec::as_slice).unwrap_or_default() {
      match parse_entry(tool) {
        Some(Parsed::Entry(entry)) => {
          let entry = *entry;
          let group = match (entry.source, entry.source_name.as_str()) {
            (Source::OpenClaw, "core") => 0,
            (Source::OpenClaw, _) => 1,
            (Source::Mcp, _) => 2,
            (Source::Client, _) => 3,
          };
          groups[group].push(entry);
        }
        Some(Parsed::Excluded) => stats.excluded_tools += 1,
        None => stats.invalid_tools += 1,
      }
    }
    let mut entries = Vec::new();
    let mut by_id = HashMap::new();
    for mut entry in groups.into_iter().flatten() {
      if by_id.contains_key(&entry.id) {
        stats.duplicate_tools += 1;
        continue;
      }
      entry.index = entries.len();
      by_id.insert(entry.id.clone(), entries.len());
      entries.push(entry);
    }
    let guest: Vec<usize> = (0..entries.len())
      .filter(|&i| entries[i].source != Source::Mcp)
      .collect();

    let mut by_safe: HashMap<String, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for &i in &guest {
      let name = names::safe_name(&entries[i].name);
      if !by_safe.contains_key(&name) {
        order.push(name.clone());
      }
      by_safe.entry(name).or_default().push(i);
    }
    let mut safe_names = Vec::new();
    for name in order {
      let owners = &by_safe[&name];
      if owners.len() == 1 && names::is_installable(&name) {
        safe_names.push((name, owners[0]));
      } else {
        // Two tools with one safe name, or a name that would shadow a helper or a prototype
        // member: no convenience function; `tools.call(id, input)` still works.
        stats.name_collisions.push(NameCollision {
          name,
          ids: owners.iter().map(|&i| entries[i].id.clone()).collect(),
        });
      }
    }
    let mut safe_name_order: Vec<u32> = (0..safe_names.len() as u32).collect();
    safe_name_order
      .sort_unstable_by(|&a, &b| safe_names[a as usize].0.cmp(&safe_names[b as usize].0));
    let mut counts = [0; 3];
    for entry in &entries {
      counts[entry.source as usize] += 1;
    }
    Catalog {
      entries,
      by_id,
      guest,
      safe_names,
      safe_name_order,
      safe_names_json: OnceLock::new(),
      stats,
      index: OnceLock::new(),
      all_index: OnceLock::new(),
      all_tools_json: OnceLock::new(),
      counts,
    }
  }

  pub fn entries(&self) -> &[CatalogEntry] {
    &self.entries
  }

  pub fn len(&self) -> usize {
    self.entries.len()
  }

  pub fn is_empty(&self) -> bool {
    self.entries.is_empty()
  }

  pub fn count(&self, source: Source) -> usize {
    self.counts[source as usize]
  }

  pub fn get(&self, id: &str) -> Option<&CatalogEntry> {
    self.by_id.get(id).map(|&i| &self.entries[i])
  }

  /// An entry the guest may reach through `tools.*` (MCP entries are not).
  pub fn guest_entry(&self, id: &str) -> Option<&CatalogEntry> {
    self.get(id).filter(|e| e.source != Source::Mcp)
  }

  pub fn guest_entries(&self) -> impl Iterator<Item = &CatalogEntry> {
    self.guest.iter().map(|&i| &self.entries[i])
  }

  pub fn safe_names(&self) -> impl Iterator<Item = (&str, &CatalogEntry)> {
    self
      .safe_names
      .iter()
      .map(|(name, i)| (name.as_str(), &self.entries[*i]))
  }

  /// The entry an installed `tools.<name>` convenience function calls, if `name` is one.
  pub fn safe_name(&self, name: &str) -> Option<&CatalogEntry> {
    let order = &self.safe_name_order;
    let at = order.partition_point(|&i| self.safe_names[i as usize].0.as_str() < name);
    let &i = order.get(at)?;
    let (safe, entry) = &self.safe_names[i as usize];
    (safe == name).then(|| &self.entries[*entry])
  }

  /// Every `tools.<name>` convenience function as `[[name, id], …]` JSON text, in installation
  /// order (built on first use, shared by every cell of the run).
  pub fn safe_names_json(&self) -> &str {
    self.safe_names_json.get_or_init(|| {
      let names: Vec<(&str, &str)> = self
        .safe_names()
        .map(|(name, entry)| (name, entry.id.as_str()))
        .collect();
      serde_json::to_string(&names).unwrap_or_default()
    })
  }

  /// `ALL_TOOLS` as JSON text (built on first use, shared by every cell of the run).
  pub fn all_tools_json(&self) -> &str {
    self
      .all_tools_json
      .get_or_init(|| json_list(self.guest_entries().map(|e| compact(e, false))))
  }

  /// Ranked guest-visible entries for `tools.search`.
  pub fn search(&self, query: &str, limit: usize) -> Vec<&CatalogEntry> {
    self.search_result(query, limit).hits
  }

  /// [`Self::search`], saying whether the query was searched whole (see [`SearchResult`]).
  pub fn search_result(&self, query: &str, limit: usize) -> SearchResult<'_> {
    let ranked = self.guest_index().ranked(query, limit);
    SearchResult {
      hits: ranked
        .hits
        .into_iter()
        .map(|doc| &self.entries[self.guest[doc]])
        .collect(),
      truncated: ranked.truncated,
      hinted: false,
    }
  }

  /// Ranked entries of the whole catalog, MCP included (Tool Search), with the same ranking.
  pub fn search_all(&self, query: &str, limit: usize) -> Vec<&CatalogEntry> {
    self.search_all_result(query, limit).hits
  }

  /// [`Self::search_all`], saying whether the query was searched whole. Its hits are Tool
  /// Search's: each carries its [`Hints`] (`input`, and `output` when there is one). A query with
  /// no word (`!!!`) finds only a tool of exactly that name: OpenClaw's Tool Search scores such a
  /// query as nothing rather than list the catalog as if ranked.
  pub fn search_all_result(&self, query: &str, limit: usize) -> SearchResult<'_> {
    // Without an MCP entry the guest index is the whole catalog's.
    let all = self.guest.len() != self.entries.len();
    let index = if all {
      self.all_index()
    } else {
      self.guest_index()
    };
    let ranked = index.ranked(query, limit);
    let hits = if ranked.wordless {
      let name = query.trim();
      self
        .entries
        .iter()
        .filter(|e| !name.is_empty() && e.name == name)
        .take(limit)
        .collect()
    } else {
      ranked
        .hits
        .into_iter()
        .map(|doc| &self.entries[if all { doc } else { self.guest[doc] }])
        .collect()
    };
    SearchResult {
      hits,
      truncated: ranked.truncated,
      hinted: true,
    }
  }

  /// Builds the search indexes now (the building thread does it for large catalogs, see
  /// `building.rs`); a search meanwhile waits for the build instead of starting its own.
  pub fn warm_index(&self) {
    self.guest_index();
    if self.guest.len() != self.entries.len() {
      self.all_index();
    }
  }

  fn guest_index(&self) -> &SearchIndex {
    self
      .index
      .get_or_init(|| SearchIndex::build(self.guest_entries().map(doc)))
  }

  fn all_index(&self) -> &SearchIndex {
    self
      .all_index
      .get_or_init(|| SearchIndex::build(self.entries.iter().map(doc)))
  }
}

/// What a search found, and whether it searched the whole query.
///
/// A query is read up to [`search::MAX_QUERY_CHARS`] characters (cut back to a word boundary)
/// and [`search::MAX_QUERY_WORDS`] distinct words; past either cap only its first part is
/// searched, never an error, and `truncated` says what was searched and why. Surfaces report it
/// next to the hits: [`SearchResult::guest_json`] for cells (`hits.queryTruncated`), and the
/// structured `tool_search` ([`SearchResult::structured_json`]) may put [`QueryTruncation::to_json`] (`{ searched, reason,
/// message }`) beside its candidates.
pub struct SearchResult<'c> {
  pub hits: Vec<&'c CatalogEntry>,
  pub truncated: Option<QueryTruncation>,
  /// Whether each hit carries its [`Hints`] (Tool Search's searches; code mode's do not).
  pub hinted: bool,
}

impl SearchResult<'_> {
  /// The hits as a compact JSON array (no schemas), the shape `tools.search` resolves to
  /// (with `input`/`output` hints when [`Self::hinted`]).
  pub fn hits_json(&self) -> String {
    json_list(self.hits.iter().map(|e| self.hit(e)))
  }

  /// One hit as a guest sees it.
  fn hit<'e>(&self, entry: &'e CatalogEntry) -> CompactEntry<'e> {
    let compact = compact(entry, false);
    if self.hinted {
      compact.with_hints(entry)
    } else {
      compact
    }
  }

  /// What a guest's search function returns to its prelude: the hits array, or, when the query
  /// was cut, `{"hits": [...], "queryTruncated": { searched, reason, message }}`, which the
  /// prelude turns into the array with a non-enumerable `queryTruncated` property (the array
  /// stays an array of hits for code that does not look).
  pub fn guest_json(&self) -> String {
    match &self.truncated {
      None => self.hits_json(),
      Some(_) => self.cut_json(|e| self.hit(e)),
    }
  }

  /// [`Self::guest_json`] for the structured `tool_search`: each description bounded to
  /// [`SEARCH_DESCRIPTION_MAX_CHARS`] (a catalog entry's description is the gateway's text, of
  /// any size; one search must not return megabytes of it).
  pub fn structured_json(&self) -> String {
    match &self.truncated {
      None => json_list(self.hits.iter().map(|e| self.searched(e))),
      Some(_) => self.cut_json(|e| self.searched(e)),
    }
  }

  /// `{"hits": [...], "queryTruncated": {...}}` with each hit written by `write`.
  fn cut_json<'e>(&self, write: impl Fn(&'e CatalogEntry) -> CompactEntry<'e>) -> String
  where
    Self: 'e,
  {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Cut<'a> {
      hits: Vec<CompactEntry<'a>>,
      query_truncated: Option<&'a QueryTruncation>,
    }
    serde_json::to_string(&Cut {
      hits: self.hits.iter().map(|e| write(e)).collect(),
      query_truncated: self.truncated.as_ref(),
    })
    .unwrap_or_default()
  }

  /// A structured `tool_search` hit: compact, its description bounded.
  fn searched<'e>(&self, entry: &'e CatalogEntry) -> CompactEntry<'e> {
    let mut compact = self.hit(entry);
    compact.description = bounded_description(&entry.description, SEARCH_DESCRIPTION_MAX_CHARS);
    compact
  }
}

/// Longest description, in characters (Unicode scalar values), a structured `tool_search` hit
/// shows; a longer one is cut to its first characters and ends with [`CUT_MARKER`].
pub const SEARCH_DESCRIPTION_MAX_CHARS: usize = 200;
/// Longest description, in characters, `tool_describe` shows (cut the same way).
pub const DESCRIBE_DESCRIPTION_MAX_CHARS: usize = 4_000;
/// Largest input schema, in bytes of its JSON text, `tool_describe` shows; a larger one is
/// replaced by an open object schema and a note (see `src/toolsearch/mod.rs`).
pub const DESCRIBE_SCHEMA_MAX_BYTES: usize = 32 * 1024;
/// What ends a description that was cut.
pub const CUT_MARKER: &str = "…";

/// `text` if it has at most `max_chars` characters; else its first characters (trailing
/// whitespace dropped) and [`CUT_MARKER`], `max_chars` characters in all. Cuts between
/// characters, never inside one.
pub fn bounded_description(text: &str, max_chars: usize) -> Cow<'_, str> {
  if text.char_indices().nth(max_chars).is_none() {
    return Cow::Borrowed(text);
  }
  let keep = max_chars.saturating_sub(CUT_MARKER.chars().count());
  let end = text
    .char_indices()
    .nth(keep)
    .map_or(text.len(), |(at, _)| at);
  let mut short = text[..end].trim_end().to_string();
  short.push_str(CUT_MARKER);
  Cow::Owned(short)
}

fn doc(e: &CatalogEntry) -> Doc<'_> {
  Doc {
    id: &e.id,
    name: &e.name,
    label: e.label.as_deref(),
    description: &e.description,
  }
}

/// The message a call or describe of an id outside the catalog gets: the tool may have been
/// denied or removed since it was found (fail closed, never a guess).
pub fn unavailable(id: &str) -> String {
  // The id is the model's: echoed up to a bound, never whole (a 50 MB id is not an error text).
  const ECHO: usize = 256;
  let shown = match id.char_indices().nth(ECHO) {
    Some((at, _)) => format!("{}… ({} bytes)", &id[..at], id.len()),
    None => id.to_string(),
  };
  format!(
    "Tool {shown} is not available in this run: it is unknown, not allowed, or no longer in the catalog. Search again for a current id."
  )
}

/// The guest-facing entry (`ToolCatalogEntry` in `src/protocol/types.rs`, plus `parameters`
/// for describe), borrowed from the catalog and serialised as it is.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactEntry<'a> {
  pub id: &'a str,
  pub name: &'a str,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub label: Option<&'a str>,
  pub description: Cow<'a, str>,
  pub source: &'static str,
  pub source_name: &'a str,
  /// Tool Search only: the input hint ([`Hints::input`]).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub input: Option<&'a str>,
  /// Tool Search only: the output hint, when there is a complete one ([`Hints::output`]).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub output: Option<&'a str>,
  /// The input schema (an empty object schema when the gateway gave none).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub parameters: Option<&'a RawValue>,
  /// Tool Search's describe only: an `openclaw` tool's declared output schema
  /// ([`Self::with_output_schema`]).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub output_schema: Option<&'a RawValue>,
}

impl<'a> CompactEntry<'a> {
  /// The entry with Tool Search's `input` and `output` hints of `entry` (made on first use).
  pub fn with_hints(self, entry: &'a CatalogEntry) -> CompactEntry<'a> {
    let hints = entry.hints();
    CompactEntry {
      input: Some(&hints.input),
      output: hints.output.as_deref(),
      ..self
    }
  }

  /// The entry with the output schema the catalog keeps of `entry` (an `openclaw` tool's), as
  /// OpenClaw's describe shows it beside `parameters`.
  pub fn with_output_schema(self, entry: &'a CatalogEntry) -> CompactEntry<'a> {
    CompactEntry {
      // The schema text is the catalog's own serialisation of the gateway's value: valid JSON.
      output_schema: entry
        .output_schema
        .as_deref()
        .and_then(|s| serde_json::from_str::<&RawValue>(s).ok()),
      ..self
    }
  }

  /// The entry as JSON text.
  pub fn to_json(&self) -> String {
    // Serialising a struct of strings cannot fail.
    serde_json::to_string(self).unwrap_or_default()
  }
}

/// The schema a tool without one is described with.
fn empty_schema() -> &'static RawValue {
  static EMPTY: OnceLock<Box<RawValue>> = OnceLock::new();
  EMPTY.get_or_init(|| {
    RawValue::from_string(r#"{"type":"object","properties":{}}"#.to_owned())
      .unwrap_or_else(|_| unreachable!("a literal JSON object"))
  })
}

/// The guest-facing entry of `entry`, with its `parameters` when asked (describe).
pub fn compact(entry: &CatalogEntry, with_parameters: bool) -> CompactEntry<'_> {
  CompactEntry {
    id: &entry.id,
    name: &entry.name,
    label: entry.label.as_deref(),
    description: Cow::Borrowed(&entry.description),
    source: entry.source.as_str(),
    source_name: &entry.source_name,
    input: None,
    output: None,
    output_schema: None,
    // The schema text is the catalog's own serialisation of the gateway's value: valid JSON.
    parameters: with_parameters.then(|| {
      entry
        .parameters
        .as_deref()
        .and_then(|p| serde_json::from_str::<&RawValue>(p).ok())
        .unwrap_or_else(|| empty_schema())
    }),
  }
}

/// Entries as a JSON array.
fn json_list<'a>(entries: impl Iterator<Item = CompactEntry<'a>>) -> String {
  let list: Vec<CompactEntry> = entries.collect();
  serde_json::to_string(&list).unwrap_or_default()
}

enum Parsed {
  Entry(Box<CatalogEntry>),
  Excluded,
}

/// Longest tool name or source name, in bytes, a catalog takes: an entry with a longer one is
/// unusable (counted invalid). Names are identifiers the model writes and every search hit
/// repeats; an MCP server chooses its own.
pub const MAX_NAME_BYTES: usize = 256;

/// Whether `name` can name a tool or its source: not blank, at most [`MAX_NAME_BYTES`], and
/// without a control character or a line or paragraph separator. Names are written into the
/// model's prompt a line each (Tool Search's directory) and into every hit, where a newline
/// would start a line of the tool's own making, and a control character costs six characters
/// of JSON.
fn usable_name(name: &str) -> bool {
  !name.trim().is_empty()
    && name.len() <= MAX_NAME_BYTES
    && !name
      .chars()
      .any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// Longest label, in characters, a catalog keeps: a longer one (an MCP server's `title`) is cut
/// as a description is ([`bounded_description`]).
pub const MAX_LABEL_CHARS: usize = 200;

fn parse_entry(tool: &Value) -> Option<Parsed> {
  let name = text(tool, "name").filter(|n| usable_name(n))?;
  let source = match tool.get("source").and_then(Value::as_str) {
    None | Some("openclaw") | Some("plugin") => Source::OpenClaw,
    Some("mcp") => Source::Mcp,
    Some("client") => Source::Client,
    Some(_) => return None,
  };
  let kind = tool.get("toolKind").and_then(Value::as_str);
  if matches!(kind, Some("code_mode_exec" | "code_mode_wait")) {
    return Some(Parsed::Excluded);
  }
  if source == Source::OpenClaw && names::CONTROL_TOOLS.contains(&name.as_str()) {
    return Some(Parsed::Excluded);
  }
  let mcp_value = tool.get("mcp").filter(|v| v.is_object());
  let source_name = text(tool, "sourceName")
    .filter(|s| !s.is_empty())
    .unwrap_or_else(|| match source {
      Source::OpenClaw => "core".to_string(),
      Source::Mcp => mcp_value
        .and_then(|m| text(m, "serverName"))
        .unwrap_or_else(|| "mcp".into()),
      Source::Client => "client".to_string(),
    });
  if !usable_name(&source_name) {
    return None;
  }
  let mcp = (source == Source::Mcp).then(|| McpBinding {
    server: mcp_value
      .and_then(|m| text(m, "serverName"))
      .unwrap_or_else(|| source_name.clone()),
    tool: mcp_value
      .and_then(|m| text(m, "toolName"))
      .unwrap_or_else(|| name.clone()),
    operation: mcp_value
      .and_then(|m| text(m, "operation"))
      .filter(|op| {
        matches!(
          op.as_str(),
          "tool" | "resources_list" | "resources_read" | "prompts_list" | "prompts_get"
        )
      })
      .unwrap_or_else(|| "tool".into()),
  });
  Some(Parsed::Entry(Box::new(CatalogEntry {
    id: names::tool_id(source.as_str(), &source_name, &name),
    label: text(tool, "label")
      .filter(|l| !l.is_empty())
      .map(|l| bounded_description(&l, MAX_LABEL_CHARS).into_owned()),
    description: text(tool, "description").unwrap_or_default(),
    parameters: tool
      .get("parameters")
      .filter(|p| !p.is_null())
      .map(Value::to_string),
    // Kept as OpenClaw keeps it: a trusted tool's, when the value is truthy.
    output_schema: tool
      .get("outputSchema")
      .filter(|p| source == Source::OpenClaw && js_truthy(p))
      .map(Value::to_string),
    hints: OnceLock::new(),
    source,
    source_name,
    name,
    mcp,
    index: 0,
  })))
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn ids(catalog: &Catalog) -> Vec<&str> {
    catalog.entries().iter().map(|e| e.id.as_str()).collect()
  }

  #[test]
  fn a_lone_surrogate_does_not_empty_the_catalog() {
    let replaced = |json: &str| lone_surrogates_replaced(json).into_owned();
    assert_eq!(replaced(r#"["\ud800x"]"#), r#"["\ufffdx"]"#);
    assert_eq!(replaced(r#"["\uDFFF"]"#), r#"["\ufffd"]"#);
    // A pair stays, an escaped backslash is not an escape, a trailing backslash is left alone.
    assert_eq!(replaced(r#"["\ud83d\ude00"]"#), r#"["\ud83d\ude00"]"#);
    assert_eq!(replaced(r#"["\\ud800"]"#), r#"["\\ud800"]"#);
    assert_eq!(
      replaced(r#"["\ude00\ud83d", "\ud800\\"#),
      r#"["\ufffd\ufffd", "\ufffd\\"#
    );
    assert_eq!(replaced("[\"\\ud800\\"), "[\"\\ufffd\\");
    let catalog = Catalog::from_json(
      r#"[{"name":"a","description":"half \ud83d an emoji"},{"name":"b","description":"\ud83d\ude00"}]"#,
    );
    assert_eq!(catalog.len(), 2);
    assert_eq!(catalog.entries()[0].description, "half \u{fffd} an emoji");
    assert_eq!(catalog.entries()[1].description, "\u{1f600}");
  }

  #[test]
  fn orders_sources_and_builds_ids() {
    let catalog = Catalog::build(&json!([
      { "name": "select_file", "source": "client", "sourceName": "app" },
      { "name": "create_issue", "source": "mcp", "sourceName": "github" },
      { "name": "browser_request", "source": "openclaw", "sourceName": "browser" },
      { "name": "message", "source": "openclaw" },
      { "name": "exec", "source": "openclaw" },
    ]));
    assert_eq!(
      ids(&catalog),
      vec![
        "openclaw:core:message",
        "openclaw:core:exec",
        "openclaw:browser:browser_request",
        "mcp:github:create_issue",
        "client:app:select_file"
      ]
    );
    assert_eq!(catalog.guest_entries().count(), 4);
    assert!(catalog.guest_entry("mcp:github:create_issue").is_none());
    let mcp = catalog
      .get("mcp:github:create_issue")
      .unwrap()
      .mcp
      .clone()
      .unwrap();
    assert_eq!(
      (
        mcp.server.as_str(),
        mcp.tool.as_str(),
        mcp.operation.as_str()
      ),
      ("github", "create_issue", "tool")
    );
  }

  #[test]
  fn excludes_controls_and_counts_duplicates() {
    let catalog = Catalog::build(&json!([
      { "name": "wait" }, { "name": "tool_search" }, { "name": "tool_call" },
      { "name": "exec", "toolKind": "code_mode_exec" },
      { "name": "read" }, { "name": "read" }, { "name": "" }, { "source": "mcp" }, 7,
      { "name": "x", "source": "martian" },
    ]));
    assert_eq!(ids(&catalog), vec!["openclaw:core:read"]);
    assert_eq!(catalog.stats.duplicate_tools, 1);
    assert_eq!(catalog.stats.excluded_tools, 4);
    assert_eq!(catalog.stats.invalid_tools, 4);
  }

  #[test]
  fn a_tool_too_deep_to_parse_is_skipped_alone() {
    let mut schema = json!({ "type": "string" });
    for _ in 0..70 {
      schema = json!({ "type": "object", "properties": { "a": schema } });
    }
    let tools =
      json!([{ "name": "read" }, { "name": "deep", "parameters": schema }, { "name": "write" }]);
    let catalog = Catalog::from_json(&tools.to_string());
    assert_eq!(
      ids(&catalog),
      vec!["openclaw:core:read", "openclaw:core:write"]
    );
    assert_eq!(catalog.stats.invalid_tools, 1);
    assert!(Catalog::from_json("not json").entries.is_empty());
  }

  #[test]
  fn names_past_their_cap_are_unusable_and_a_long_label_is_cut() {
    let long = "n".repeat(MAX_NAME_BYTES + 1);
    let tools = json!([
      { "name": "read", "label": "l".repeat(100_000) },
      { "name": long },
      { "name": "write", "sourceName": long },
      { "name": "fetch", "source": "mcp", "mcp": { "serverName": long } },
      { "name": "n".repeat(MAX_NAME_BYTES) },
    ]);
    let catalog = Catalog::from_json(&tools.to_string());
    assert_eq!(catalog.stats.invalid_tools, 3);
    assert_eq!(catalog.entries.len(), 2);
    let label = catalog.entries[0].label.as_deref().unwrap_or_default();
    assert_eq!(label.chars().count(), MAX_LABEL_CHARS);
    assert!(label.ends_with(CUT_MARKER));
  }

  #[test]
  fn names_with_a_control_character_or_a_line_separator_are_unusable() {
    let tools = json!([
      { "name": "core\nnewline" },
      { "name": "tab\tbed" },
      { "name": "bell\u{7}" },
      { "name": "next\u{85}line" },
      { "name": "para\u{2029}graph" },
      { "name": "write", "sourceName": "evil\r\nserver" },
      { "name": "fetch", "source": "mcp", "sourceName": "  " },
      { "name": "spaced name", "description": "Still a name" },
      { "name": "café_ünïcode" },
    ]);
    let catalog = Catalog::from_json(&tools.to_string());
    assert_eq!(catalog.stats.invalid_tools, 7);
    let names: Vec<&str> = catalog.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["spaced name", "café_ünïcode"]);
  }

  #[test]
  fn safe_names_only_when_unambiguous() {
    let catalog = Catalog::build(&json!([
      { "name": "web-search" }, { "name": "web_search", "sourceName": "plugin" },
      { "name": "read-file" }, { "name": "constructor" }, { "name": "search" },
      { "name": "fetch_page", "source": "mcp", "sourceName": "web" },
    ]));
    let installed: Vec<&str> = catalog.safe_names().map(|(n, _)| n).collect();
    assert_eq!(installed, vec!["read_file"]);
    let collided: Vec<&str> = catalog
      .stats
      .name_collisions
      .iter()
      .map(|c| c.name.as_str())
      .collect();
    assert_eq!(collided, vec!["web_search", "constructor", "search"]);
    assert_eq!(catalog.stats.name_collisions[0].ids.len(), 2);
    // One name at a time, as a cell resolves `tools.<name>`: only installed names answer.
    let id = |name: &str| catalog.safe_name(name).map(|e| e.id.as_str());
    assert_eq!(id("read_file"), Some("openclaw:core:read-file"));
    for name in [
      "web_search",
      "constructor",
      "search",
      "fetch_page",
      "read",
      "",
      "read_filex",
    ] {
      assert_eq!(id(name), None, "{name}");
    }
    assert_eq!(
      catalog.safe_names_json(),
      r#"[["read_file","openclaw:core:read-file"]]"#
    );
  }

  #[test]
  fn a_search_says_when_it_searched_the_first_part_only() {
    let catalog = Catalog::build(&json!([
      { "name": "read_file", "description": "Read a file" },
      { "name": "create_issue", "source": "mcp", "sourceName": "github", "description": "Create an issue" },
    ]));
    let whole = catalog.search_result("read a file", 5);
    assert!(whole.truncated.is_none());
    assert_eq!(whole.guest_json(), whole.hits_json());
    assert!(
      whole
        .guest_json()
        .starts_with(r#"[{"id":"openclaw:core:read_file""#)
    );
    let long = format!("read a file {}", "x".repeat(2_000));
    let cut = catalog.search_result(&long, 5);
    assert_eq!(cut.hits_json(), whole.hits_json());
    let guest: Value = serde_json::from_str(&cut.guest_json()).unwrap();
    assert_eq!(
      guest["hits"],
      serde_json::from_str::<Value>(&whole.hits_json()).unwrap()
    );
    assert_eq!(guest["queryTruncated"]["searched"], "read a file");
    assert_eq!(guest["queryTruncated"]["reason"], "chars");
    // Tool Search's search of the whole catalog reports it too.
    let words: Vec<String> = (0..40u8)
      .map(|i| format!("q{}{}", (b'a' + i / 26) as char, (b'a' + i % 26) as char))
      .collect();
    let all = catalog.search_all_result(&format!("create issue {}", words.join(" ")), 5);
    assert_eq!(all.hits[0].id, "mcp:github:create_issue");
    let cut = all.truncated.unwrap();
    assert_eq!(cut.reason, search::TruncationReason::Words);
    assert_eq!(
      cut.searched,
      format!(
        "create issue {}",
        words[..search::MAX_QUERY_WORDS - 2].join(" ")
      )
    );
  }

  #[test]
  fn a_description_is_bounded_between_characters_with_a_marker() {
    assert!(matches!(
      bounded_description("short", 5),
      Cow::Borrowed("short")
    ));
    assert_eq!(bounded_description("abcdef", 5), "abcd…");
    // Characters, not bytes: four-byte emoji are kept whole.
    let emoji = "\u{1f600}".repeat(10);
    assert_eq!(
      bounded_description(&emoji, 5),
      format!("{}…", "\u{1f600}".repeat(4))
    );
    // Whitespace before the cut is dropped.
    assert_eq!(bounded_description("ab   cdefgh", 6), "ab…");
    assert_eq!(bounded_description("", 0), "");
  }

  #[test]
  fn a_query_without_words_finds_only_a_tool_of_that_name_in_tool_search() {
    let catalog = Catalog::build(&json!([
      { "name": "weather", "description": "Weather" },
      { "name": "!!!", "description": "Bangs" },
      { "name": "issue", "source": "mcp", "sourceName": "github", "description": "Issues" },
    ]));
    let names = |found: SearchResult<'_>| {
      found
        .hits
        .iter()
        .map(|e| e.name.clone())
        .collect::<Vec<_>>()
    };
    for query in ["...", "\u{200b}", "", "   ", "?!"] {
      assert!(
        catalog.search_all_result(query, 5).hits.is_empty(),
        "{query:?}"
      );
    }
    // A word the cap would split is not searched: what is left has no word either.
    let split = format!("{}ab", "!".repeat(search::MAX_QUERY_CHARS - 1));
    assert!(catalog.search_all_result(&split, 5).hits.is_empty());
    assert_eq!(names(catalog.search_all_result(" !!! ", 5)), ["!!!"]);
    assert_eq!(names(catalog.search_all_result("weather", 5)), ["weather"]);
    // Cut as any query is, and said so.
    let long = catalog.search_all_result(&"!".repeat(600), 5);
    assert!(long.hits.is_empty());
    assert_eq!(
      long.truncated.map(|t| t.reason),
      Some(search::TruncationReason::Chars)
    );
    // Code mode's own `tools.search` still lists its tools for an empty query.
    assert_eq!(catalog.search("", 5).len(), 2);
  }

  #[test]
  fn the_structured_search_bounds_descriptions_and_cells_see_them_whole() {
    let long = format!("Fetch the weather. {}", "x".repeat(1_000_000));
    let catalog = Catalog::build(&json!([
      { "name": "weather", "description": long },
      { "name": "small_weather", "description": "Weather, briefly" },
    ]));
    let found = catalog.search_all_result("weather", 5);
    let hits: Value = serde_json::from_str(&found.structured_json()).unwrap();
    let texts: Vec<&str> = hits
      .as_array()
      .unwrap()
      .iter()
      .map(|h| h["description"].as_str().unwrap())
      .collect();
    assert!(texts.contains(&"Weather, briefly"));
    let cut = texts.iter().find(|t| t.starts_with("Fetch")).unwrap();
    assert_eq!(cut.chars().count(), SEARCH_DESCRIPTION_MAX_CHARS);
    assert!(cut.ends_with(CUT_MARKER));
    // A cell's `tools.search` is bounded by its output cap instead: its hits are unchanged.
    assert!(found.guest_json().len() > 1_000_000);
    // A query cut to its first part keeps `{ hits, queryTruncated }`, hits bounded too.
    let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
    let many = catalog.search_all_result(&format!("weather {}", words.join(" ")), 5);
    let cut: Value = serde_json::from_str(&many.structured_json()).unwrap();
    assert_eq!(cut["queryTruncated"]["reason"], "words");
    assert!(
      cut["hits"][0]["description"]
        .as_str()
        .unwrap()
        .chars()
        .count()
        <= 200
    );
  }

  #[test]
  fn tool_search_hits_carry_input_and_output_hints_and_code_mode_hits_do_not() {
    let closed = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"], "additionalProperties": false });
    let open = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
    let input = json!({ "type": "object", "properties": { "id": { "type": "string" }, "mode": { "enum": ["drip", "flood"] } }, "required": ["id"] });
    let catalog = Catalog::from_json(
      &json!([
        { "name": "drip_feed", "description": "Feed the drip", "parameters": input, "outputSchema": closed },
        { "name": "drip_open", "description": "Feed the drip, open output", "parameters": input, "outputSchema": open },
        { "name": "drip_mcp", "source": "mcp", "sourceName": "srv", "description": "Feed the drip", "parameters": input, "outputSchema": closed },
        { "name": "drip_client", "source": "client", "description": "Feed the drip", "parameters": input },
        { "name": "drip_bare", "description": "Feed the drip, no schema" },
      ])
      .to_string(),
    );
    // Nothing is hinted until a hit shows it.
    assert!(catalog.entries().iter().all(|e| e.hints.get().is_none()));
    let found = catalog.search_all_result("drip", 10);
    assert!(found.hinted);
    let hits: Vec<Value> = serde_json::from_str(&found.structured_json()).unwrap();
    let by_name = |name: &str| hits.iter().find(|h| h["name"] == name).unwrap().clone();
    let feed = by_name("drip_feed");
    assert_eq!(feed["input"], r#"{ id: string; mode?: "drip" | "flood" }"#);
    assert_eq!(feed["output"], "{ ok: boolean }");
    // After sourceName, in the catalog's own order.
    let keys: Vec<&str> = feed
      .as_object()
      .unwrap()
      .keys()
      .map(String::as_str)
      .collect();
    assert_eq!(
      keys,
      [
        "id",
        "name",
        "description",
        "source",
        "sourceName",
        "input",
        "output"
      ]
    );
    assert!(by_name("drip_open").get("output").is_none());
    for name in ["drip_mcp", "drip_client"] {
      assert_eq!(by_name(name)["input"], "unknown", "{name}");
      assert!(by_name(name).get("output").is_none(), "{name}");
    }
    assert_eq!(by_name("drip_bare")["input"], "unknown");
    // The guest's `openclaw.tools.search` hits say the same.
    assert_eq!(
      serde_json::from_str::<Vec<Value>>(&found.guest_json()).unwrap()[0]["input"],
      hits[0]["input"]
    );
    // MCP and client tools' schemas are never parsed for a hint; the catalog keeps an output
    // schema for `openclaw` tools only.
    assert!(
      catalog
        .get("mcp:srv:drip_mcp")
        .unwrap()
        .output_schema
        .is_none()
    );
    // Code mode's `tools.search` is unchanged: no hints.
    let code_mode = catalog.search_result("drip", 10);
    assert!(!code_mode.guest_json().contains("\"input\""));
  }

  #[test]
  fn searches_leave_no_state_behind_across_catalogs() {
    let tools = |n: usize, tag: &str| -> Value {
      Value::Array(
        (0..n)
          .map(|i| json!({ "name": format!("{tag}_note_{i}"), "description": format!("write notes and files for team {}", i % 7) }))
          .collect(),
      )
    };
    let big = Catalog::build(&tools(2_000, "big"));
    let small = Catalog::build(&tools(30, "small"));
    let ids = |hits: Vec<&CatalogEntry>| hits.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    let queries = [
      "write notes",
      "files for team 3",
      "team notes files",
      "small_note_4",
      "big_note_1999",
    ];
    let first: Vec<_> = queries
      .iter()
      .map(|q| (ids(big.search(q, 10)), ids(small.search(q, 10))))
      .collect();
    for _ in 0..3 {
      for (q, expected) in queries.iter().zip(&first) {
        assert_eq!(
          &(ids(big.search(q, 10)), ids(small.search(q, 10))),
          expected,
          "{q}"
        );
      }
    }
    // Tool Search sees MCP entries too, ranked the same way.
    let mixed = Catalog::build(&json!([
      { "name": "create_issue", "source": "mcp", "sourceName": "github", "description": "Create an issue" },
      { "name": "list_issues", "description": "List issues" },
    ]));
    assert_eq!(
      ids(mixed.search("issue", 5)),
      vec!["openclaw:core:list_issues"]
    );
    assert_eq!(
      ids(mixed.search_all("create issue", 5)),
      vec!["mcp:github:create_issue", "openclaw:core:list_issues"]
    );
  }
}
