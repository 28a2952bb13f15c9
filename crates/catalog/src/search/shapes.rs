//! TEST ONLY. Catalog shapes the search must handle at any size, as `npm run bench` builds them
//! (`bench/lib/tool-search.mjs`, the same formulas): the bench's own synthetic catalog,
//! templated connectors (one sentence pattern, a few numbers and team names), near-duplicates
//! (the same tools mirrored by many plugins), one huge MCP server next to the bench's tools, and
//! many tiny servers. Each comes with three queries: one that picks out a single tool, one that
//! matches nothing, and one made of words every tool (of the shape's bulk) says.

/// One tool: id, name, label, description.
pub(super) struct Tool {
  pub(super) id: String,
  pub(super) name: String,
  pub(super) label: Option<String>,
  pub(super) description: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
  Bench,
  Templated,
  NearDuplicate,
  HugeServer,
  TinyServers,
}

pub(super) const SHAPES: [Shape; 5] = [
  Shape::Bench,
  Shape::Templated,
  Shape::NearDuplicate,
  Shape::HugeServer,
  Shape::TinyServers,
];

const VERBS: [&str; 5] = ["read", "write", "list", "send", "sync"];
const NOUNS: [&str; 7] = ["file", "issue", "ticket", "event", "note", "user", "page"];
const TEAMS: [&str; 12] = [
  "falcon",
  "otter",
  "heron",
  "data platform",
  "badger",
  "billing ops",
  "osprey",
  "bison",
  "crane",
  "growth",
  "ibis",
  "koala",
];
const RESOURCES: [&str; 9] = [
  "invoices",
  "contacts",
  "orders",
  "tickets",
  "deals",
  "payments",
  "shipments",
  "leads",
  "accounts",
];
/// Near-duplicates: the tools many plugins mirror.
const MIRRORED: [(&str, &str); 10] = [
  ("web_search", "Search the web for pages about a topic"),
  ("web_fetch", "Fetch a web page and return its text"),
  ("read_file", "Read a text file from the workspace"),
  ("write_file", "Write text to a file in the workspace"),
  ("send_email", "Send an email to a recipient"),
  ("create_issue", "Create an issue in the tracker"),
  ("list_events", "List calendar events for a day"),
  ("get_weather", "Get the weather forecast for a city"),
  ("run_query", "Run a SQL query against the warehouse"),
  ("post_message", "Post a message to a chat channel"),
];
const WORDS: [&str; 24] = [
  "account", "alert", "archive", "backup", "channel", "commit", "deploy", "export", "graph",
  "import", "invoice", "label", "metric", "order", "payment", "queue", "report", "review",
  "schema", "secret", "stream", "token", "upload", "webhook",
];

/// The bench's synthetic catalog (`bench/lib/tool-search.mjs`, `nameOf` and `descriptionOf`).
fn bench(i: usize) -> (String, String) {
  (
    format!("{}_{}_{i}", VERBS[i % 5], NOUNS[i % 7]),
    format!(
      "Tool number {i}: {}s {}s for team {} bench 0.5",
      VERBS[i % 5],
      NOUNS[i % 5],
      i % 97
    ),
  )
}

/// `size` tools of `shape`.
pub(super) fn catalog(shape: Shape, size: usize) -> Vec<Tool> {
  (0..size)
    .map(|i| {
      let (source, name, label, description) = match shape {
        Shape::Bench => {
          let (name, description) = bench(i);
          ("openclaw:core".to_string(), name, None, description)
        }
        Shape::Templated => {
          let team = TEAMS[i % TEAMS.len()];
          let resource = RESOURCES[(i / TEAMS.len()) % RESOURCES.len()];
          (
            "openclaw:connectors".to_string(),
            format!("{}_{resource}_sync_{i}", team.replace(' ', "_")),
            None,
            format!(
              "Synchronizes {resource} for the {team} team from region {} every {} minutes using connector version {}.{}",
              i % 9,
              5 + i % 55,
              i % 4,
              i % 10
            ),
          )
        }
        Shape::NearDuplicate => {
          let (name, description) = MIRRORED[i % MIRRORED.len()];
          let mirror = i / MIRRORED.len();
          (
            format!("openclaw:mirror{mirror}"),
            name.to_string(),
            (i % 3 == 0).then(|| name.replace('_', " ")),
            format!(
              "{description}. Provided by mirror {mirror} in region {}.",
              mirror % 7
            ),
          )
        }
        Shape::HugeServer if i % 2 == 0 => {
          let k = i / 2;
          (
            "mcp:warehouse".to_string(),
            format!(
              "{}_{}_{k}",
              VERBS[k % 5],
              WORDS[(k / 5) % WORDS.len()]
            ),
            None,
            format!(
              "Warehouse API: {}s {} records for site {} (batch {}).",
              VERBS[k % 5],
              WORDS[(k / 5) % WORDS.len()],
              k % 50,
              k % 7
            ),
          )
        }
        Shape::HugeServer => {
          let (name, description) = bench(i / 2);
          ("openclaw:core".to_string(), name, None, description)
        }
        Shape::TinyServers => {
          let pick = |k: usize| WORDS[(i * 7 + k * 13 + i / 3) % WORDS.len()];
          (
            format!("mcp:srv{}", i / 2),
            format!("{}_{}", pick(0), pick(1)),
            (i % 4 == 0).then(|| format!("{} {}", pick(2), pick(0))),
            format!(
              "{} the {} of a {} {}",
              pick(3),
              pick(1),
              pick(4),
              if i % 5 == 0 { "quickly" } else { "" }
            ),
          )
        }
      };
      Tool {
        id: format!("{source}:{name}"),
        name,
        label,
        description,
      }
    })
    .collect()
}

/// `(kind, query)`: `specific` names one tool (number 42, there at every size: its name's
/// words, and for a mirrored tool its mirror), `none` matches nothing, `common` is words every
/// tool of the shape's bulk says.
pub(super) fn queries(shape: Shape) -> [(&'static str, String); 3] {
  let tool = catalog(shape, 43).swap_remove(42);
  let mut specific = tool.name.replace('_', " ");
  if shape == Shape::NearDuplicate {
    specific.push_str(" mirror 4");
  }
  let common = match shape {
    Shape::Bench => "tool number for team bench",
    Shape::Templated => "synchronizes team region minutes connector version",
    Shape::NearDuplicate => "provided by mirror in region",
    Shape::HugeServer => "warehouse api records for site batch",
    Shape::TinyServers => "the of a",
  };
  [
    ("specific", specific),
    ("none", "xyzzy".to_string()),
    ("common", common.to_string()),
  ]
}
