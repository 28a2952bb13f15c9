//! The model-visible surface: the `exec` and `wait` definitions and the payload assertion.
//!
//! The exec description is the whole prompt cost of code mode, so it teaches the guest API in
//! as few lines as possible and grows only with what this run can actually use.

use crate::protocol::types::ModelToolDefinition;
use serde_json::json;

/// Exactly what the model may see while code mode is active.
pub const VISIBLE_TOOLS: [&str; 2] = ["exec", "wait"];

const EXEC_INTRO: &str = "Run a short JavaScript program in a sandbox to use this run's tools. \
Only exec and wait are visible; every other tool is in a hidden catalog reachable from code.
- The result value is the top-level `return`, else the last expression statement. Top-level await works.
- ALL_TOOLS lists {id, name, description, source}. await tools.search(query, {limit}) ranks entries; \
await tools.describe(id) adds the JSON Schema `parameters`; await tools.call(id, input) runs a tool. \
tools.<name>(input) is a shortcut for unambiguous names.
- Use Promise.all for independent calls.
- text(value), json(value) and console.log add output items.
- No import/require, network, filesystem or environment: only the tools.";

const EXEC_TYPESCRIPT: &str =
  "\n- Set language \"typescript\" to write TypeScript (types are stripped, not checked).";

const EXEC_MCP: &str = "\n- MCP tools: await MCP.<server>.<tool>({...input}). Signatures: await API.list(\"mcp\"), \
await API.read(\"mcp/<server>.d.ts\").";

const EXEC_WAITING: &str = "\nA result {status: \"waiting\", runId} means tools are still running: call wait with that runId.";

const WAIT_DESCRIPTION: &str = "Continue a code mode program that returned {status: \"waiting\"}. \
Returns the same result shape as exec: completed, failed, or waiting again.";

/// A namespace visible in this run, for the exec description.
pub struct NamespaceDoc<'a> {
  pub global_name: &'a str,
  pub description: &'a str,
  pub prompt: Option<&'a str>,
}

/// What shapes the exec definition for one run.
pub struct SurfaceOptions<'a> {
  pub languages: &'a [String],
  pub has_mcp: bool,
  pub namespaces: &'a [NamespaceDoc<'a>],
}

/// The exec description for a run.
pub fn exec_description(options: &SurfaceOptions) -> String {
  let mut text = String::from(EXEC_INTRO);
  if options.languages.iter().any(|l| l == "typescript") {
    text.push_str(EXEC_TYPESCRIPT);
  }
  if options.has_mcp {
    text.push_str(EXEC_MCP);
  }
  for ns in options.namespaces {
    text.push_str("\n- ");
    text.push_str(ns.global_name);
    text.push_str(": ");
    text.push_str(ns.description.trim());
    if let Some(prompt) = ns.prompt.map(str::trim).filter(|p| !p.is_empty()) {
      text.push(' ');
      text.push_str(prompt);
    }
  }
  text.push_str(EXEC_WAITING);
  text
}

/// `[exec, wait]` as `ModelToolDefinition` JSON values.
pub fn model_tools(options: &SurfaceOptions) -> Vec<ModelToolDefinition> {
  let languages: Vec<&str> = options.languages.iter().map(String::as_str).collect();
  vec![
    ModelToolDefinition {
      name: "exec".into(),
      label: "Code mode exec".into(),
      description: exec_description(options),
      parameters: json!({
        "type": "object",
        "properties": {
          "code": { "type": "string", "description": "The program to run." },
          "command": {
            "type": "string",
            "description": "Alias of code for exec-compatible callers; must equal code when both are set."
          },
          "language": {
            "type": "string",
            "enum": languages,
            "description": "Language of the program. Default \"javascript\"."
          }
        },
        "additionalProperties": false
      }),
    },
    ModelToolDefinition {
      name: "wait".into(),
      label: "Code mode wait".into(),
      description: WAIT_DESCRIPTION.into(),
      parameters: json!({
        "type": "object",
        "properties": {
          "runId": { "type": "string", "description": "The runId of a waiting result." }
        },
        "required": ["runId"],
        "additionalProperties": false
      }),
    },
  ]
}

/// `Ok` only when `names` is exactly `exec`, `wait` (in any order, no repeats).
pub fn check_payload(names: &[String]) -> Result<(), String> {
  let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
  sorted.sort_unstable();
  if sorted == VISIBLE_TOOLS {
    Ok(())
  } else {
    Err(format!(
      "Code mode payload tool surface violation: expected exec,wait; got {}",
      names.join(",")
    ))
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn both() -> Vec<String> {
    vec!["javascript".into(), "typescript".into()]
  }

  #[test]
  fn base_description_stays_small() {
    let langs = both();
    let full = exec_description(&SurfaceOptions {
      languages: &langs,
      has_mcp: true,
      namespaces: &[],
    });
    assert!(
      full.len() < 2048,
      "exec description is {} bytes",
      full.len()
    );
  }

  #[test]
  fn mcp_and_namespaces_only_when_present() {
    let langs = both();
    let plain = exec_description(&SurfaceOptions {
      languages: &langs,
      has_mcp: false,
      namespaces: &[],
    });
    assert!(!plain.contains("MCP."));
    let ns = [NamespaceDoc {
      global_name: "Issues",
      description: "Issue helpers.",
      prompt: Some("Use Issues.list()."),
    }];
    let with = exec_description(&SurfaceOptions {
      languages: &langs,
      has_mcp: true,
      namespaces: &ns,
    });
    assert!(
      with.contains("MCP.<server>") && with.contains("Issues: Issue helpers. Use Issues.list().")
    );
  }

  #[test]
  fn language_is_a_flat_enum() {
    let langs = vec!["javascript".to_string()];
    let tools = model_tools(&SurfaceOptions {
      languages: &langs,
      has_mcp: false,
      namespaces: &[],
    });
    let language = &tools[0].parameters["properties"]["language"];
    assert_eq!(language["type"], "string");
    assert_eq!(language["enum"], json!(["javascript"]));
    assert!(!tools[0].description.contains("typescript"));
  }

  #[test]
  fn payload_assertion() {
    assert!(check_payload(&["wait".into(), "exec".into()]).is_ok());
    let err = check_payload(&["exec".into(), "read".into()]).unwrap_err();
    assert_eq!(
      err,
      "Code mode payload tool surface violation: expected exec,wait; got exec,read"
    );
    assert!(check_payload(&["exec".into(), "wait".into(), "wait".into()]).is_err());
  }
}
