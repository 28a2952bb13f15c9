//! The query vocabulary: stopwords, synonym groups, one-way hints and two-word phrases, and the
//! stemmed [`Thesaurus`] built from them once.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::stem::stem;

/// Query words that carry no meaning for tool selection.
const STOPWORDS: &str = "a an the to of for and or in on at with my me i is it this that from by \
  please some all into via using can you be as about its our your we what which who how when do \
  does did have has had are was were will would should could there here any just also then than \
  so if now right later want need let these those them they their us s t d m ll re ve im like \
  something thing someone somebody";

/// Words a model may use for the same thing: each word also searches for the rest of its group.
/// Kept to everyday tool vocabulary (actions, objects, common apps), never to one catalog's
/// tool names, so it helps any catalog.
const SYNONYMS: &[&str] = &[
  // Actions.
  "create new add make",
  "append add attach extend insert",
  "delete remove erase destroy trash purge wipe discard",
  "find search lookup locate seek hunt",
  "get fetch retrieve obtain load grab",
  "show view display see print",
  "list enumerate browse",
  "run execute exec launch invoke trigger",
  "start begin initiate launch",
  "stop kill terminate halt abort end quit",
  "edit modify change alter replace tweak fix correct amend revise",
  "update upgrade modify change set",
  "write save store persist overwrite",
  "download fetch save",
  "upload transfer",
  "send post publish deliver dispatch",
  "share invite grant permission",
  "pick select choose chooser picker",
  "confirm confirmation approve approval ask question prompt",
  "describe analyze analyse inspect examine explain identify recognize",
  "extract parse scrape",
  "restart reboot reload relaunch",
  "cancel abort revoke",
  "done complete finish close resolve finished",
  "react reaction emoji emoticon",
  "notify notification alert push popup",
  "research investigate study",
  "translate translation language",
  "present display render",
  // Files, code and the machine.
  "file document",
  "document doc docs",
  "directory folder dir",
  "content contents body",
  "string text",
  "regex regexp pattern expression",
  "glob wildcard",
  "patch diff",
  "shell terminal bash command cli console",
  "process job task",
  "history transcript log conversation",
  "config configuration setting settings preference option",
  "paragraph block section",
  "note comment annotation remark",
  // Web and apps.
  "url link uri href",
  "website site webpage web internet online",
  "ui canvas render interface",
  "click tap press button",
  "email mail gmail inbox",
  "message chat dm msg",
  "thread reply",
  "json structured schema structure",
  "clipboard pasteboard",
  // Agents, memory and usage.
  "memory remember memorize memorise recall memo",
  "fact info information knowledge detail",
  "agent subagent worker",
  "delegate spawn assign subagent",
  "usage cost token quota billing spend",
  "active running live ongoing current",
  "latest recent newest last",
  // Time and scheduling.
  "remind reminder alarm timer cron recurring periodic repeat",
  "meeting event appointment calendar meet standup",
  "schedule book plan arrange",
  "free available availability slot busy",
  // Devices, home and media.
  "phone mobile device smartphone cellphone",
  "call dial ring",
  "location locate gps position where",
  "picture photo image pic img",
  "screenshot snapshot capture screencap screengrab",
  "speech speak voice aloud tts say",
  "music song track playlist album tune",
  "play playback resume",
  "pause suspend",
  "light lamp bulb lighting",
  "turn switch toggle",
  "thermostat climate heating cooling hvac",
  "temperature degree hot cold warm heat warmer cooler hotter colder",
  "weather forecast",
  "spreadsheet sheet workbook",
  // Work and commerce.
  "todo task checklist chore",
  "bug issue ticket defect",
  "ci build pipeline workflow",
  "refund reimburse chargeback",
  "payment charge transaction invoice pay",
  "customer client buyer",
  "colleague coworker teammate people person collaborator",
  // Places and travel.
  "place restaurant cafe shop venue business bar hotel",
  "nearby near around local",
  "direction route navigate navigation travel commute trip",
];

/// One-way hints: the key suggests these words, not the other way round ("email someone" is a
/// send; "send" is not an email).
const RELATED: &[(&str, &str)] = &[
  ("email", "send"),
  ("insert", "edit"),
  ("show", "list"),
  ("start", "run execute"),
  ("access", "share permission"),
  ("spreadsheet", "file document"),
  ("reschedule", "update move change"),
  ("postpone", "update move change"),
  ("delay", "update move change"),
  ("windy", "weather forecast wind"),
  ("cloudy", "weather forecast"),
  ("rainy", "weather forecast rain"),
  ("afternoon", "forecast hourly"),
  ("evening", "forecast hourly"),
  ("morning", "forecast hourly"),
  ("generate", "create make produce"),
  ("grab", "download"),
  ("audio", "speech voice sound"),
  ("text", "message send"),
  ("open", "create launch show read view"),
  ("forget", "delete remove clear"),
  ("remember", "store save"),
  ("move", "update change transfer rename"),
  ("mark", "set update"),
  ("schedule", "create add"),
  ("book", "create reserve"),
  ("cancel", "delete remove"),
  ("phone", "call node"),
  ("photo", "camera"),
  ("copy", "clipboard write"),
  ("paste", "clipboard read"),
  ("pr", "pull request"),
  ("google", "search web"),
  ("typo", "edit fix"),
  ("version", "update upgrade release"),
  ("output", "log result stdout"),
  ("job", "cron process"),
  ("exist", "list"),
  ("which", "list"),
  ("conversation", "message chat thread"),
  ("walk", "foot route direction travel"),
  ("outside", "weather"),
  ("rain", "weather forecast"),
  ("snow", "weather forecast"),
  ("sunny", "weather forecast"),
  ("storm", "weather forecast"),
  ("daily", "cron schedule recurring day"),
  ("hourly", "cron schedule recurring hour"),
  ("weekly", "cron schedule recurring week"),
  ("nightly", "cron schedule recurring night"),
  ("every", "cron recurring repeat"),
  ("tomorrow", "date day"),
  ("today", "date day"),
  ("tonight", "date evening"),
  ("yesterday", "date day"),
  ("week", "date day"),
  ("weekend", "date day"),
  ("month", "date"),
  ("monday", "date day"),
  ("tuesday", "date day"),
  ("wednesday", "date day"),
  ("thursday", "date day"),
  ("friday", "date day"),
  ("saturday", "date day"),
  ("sunday", "date day"),
  ("english", "language translate"),
  ("spanish", "language translate"),
  ("french", "language translate"),
  ("german", "language translate"),
  ("italian", "language translate"),
  ("portuguese", "language translate"),
  ("japanese", "language translate"),
  ("chinese", "language translate"),
  ("korean", "language translate"),
  ("russian", "language translate"),
  ("arabic", "language translate"),
  ("click", "ui automation act"),
  ("button", "ui automation"),
];

/// Two-word phrases that mean one thing: "look up" is not "look" plus "up".
const PHRASES: &[(&str, &str)] = &[
  ("look up", "search find lookup"),
  ("look for", "search find"),
  ("hang up", "end stop hangup"),
  ("set up", "setup configure install create"),
  ("sign in", "login signin auth"),
  ("log in", "login signin auth"),
  ("sub agent", "subagent spawn agent"),
  ("pull request", "pr pull request"),
  ("to do", "todo task"),
  ("pop up", "popup notification alert"),
];

/// Stemmed stopword, synonym and phrase tables, built once.
pub(super) struct Thesaurus {
  /// [`STOPWORDS`], stemmed like query words (`some` → `som`).
  stopwords: HashSet<String>,
  pub(super) expansions: HashMap<String, Vec<String>>,
  /// `(first, second, synonyms)`: few enough to scan.
  pub(super) phrases: Vec<(String, String, Vec<String>)>,
}

pub(super) fn thesaurus() -> &'static Thesaurus {
  static THESAURUS: OnceLock<Thesaurus> = OnceLock::new();
  THESAURUS.get_or_init(|| {
    let mut expansions: HashMap<String, Vec<String>> = HashMap::new();
    let mut relate = |from: &str, to: &str| {
      let (from, to) = (stem(from), stem(to));
      if from != to {
        let list = expansions.entry(from).or_default();
        if !list.contains(&to) {
          list.push(to);
        }
      }
    };
    for group in SYNONYMS {
      for from in group.split_whitespace() {
        for to in group.split_whitespace() {
          relate(from, to);
        }
      }
    }
    for (from, to) in RELATED {
      for to in to.split_whitespace() {
        relate(from, to);
      }
    }
    let phrases = PHRASES
      .iter()
      .filter_map(|(phrase, to)| {
        let (first, second) = phrase.split_once(' ')?;
        Some((
          stem(first),
          stem(second),
          to.split_whitespace().map(stem).collect(),
        ))
      })
      .collect();
    Thesaurus {
      stopwords: STOPWORDS.split_whitespace().map(stem).collect(),
      expansions,
      phrases,
    }
  })
}

pub(super) fn is_stopword(word: &str) -> bool {
  thesaurus().stopwords.contains(word)
}
