//! Entry points for the cargo-fuzz targets in `fuzz/` (not part of the Node API). Each one runs
//! a parser or renderer on arbitrary input and checks the invariants the runtime relies on.
#![allow(
  clippy::expect_used,
  clippy::unwrap_used,
  reason = "fuzz entry points: a panic is the fuzzer's finding"
)]

use crate::error::Failure;
use crate::frontend::{Language, PREPARE_STACK, Program, parse_wrapped, prepare_until};
use crate::mcp::{dts, prepare_input};
use code_mode_catalog::Catalog;
use serde_json::Value;
use swc_core::common::BytePos;
use swc_core::ecma::parser::{Parser, StringInput, Syntax, TsSyntax, lexer::Lexer};

/// `prepare` as a worker runs it: a worker's stack, a parse deadline like a cell's CPU budget,
/// and swc's own panics caught (the runtime reports them as a program it cannot read). While
/// it runs, the panic hook is silenced: libFuzzer's hook would call a caught panic a crash.
fn prepare_like_a_worker(code: &str, language: Language) -> Result<Program, Failure> {
  let code = code.to_string();
  let hook = std::panic::take_hook();
  std::panic::set_hook(Box::new(|_| {}));
  let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
  let prepared = std::thread::Builder::new()
    .stack_size(PREPARE_STACK)
    .spawn(move || {
      prepare_until(
        &code,
        language,
        Some(deadline),
        &code_mode_protocol::error::CODE_MODE_NAMES,
      )
    })
    .expect("a fuzzing thread")
    .join();
  std::panic::set_hook(hook);
  prepared.expect("prepare never panics")
}

/// The module-access check and completion rewrite (as the runtime calls them, so a parser panic
/// is a refused program): never panics; a program without the words
/// `import`/`require` is never refused as module access; an accepted program still parses.
pub fn source_check(code: &str) {
  match prepare_like_a_worker(code, Language::JavaScript) {
    Ok(program) => {
      let reparsed = parse_wrapped(code, &program.code, Language::JavaScript, Failure::invalid);
      // swc accepts a few invalid programs in statement position that it refuses inside
      // `return (…)` (e.g. `a, {b = 1}`); QuickJS refuses those originals too, so the cell
      // fails the same way. Anything else is a rewrite bug.
      assert!(
        reparsed.is_ok() || !quickjs_compiles(&crate::frontend::wrap(code)),
        "the completion rewrite broke the program: {:?}",
        program.code
      );
    }
    Err(failure) => {
      if failure.message.starts_with("module access") {
        assert!(
          code.contains("import") || code.contains("require"),
          "false positive: {code:?}"
        );
      }
    }
  }
}

/// True when QuickJS (strict, as cells run) compiles `code`.
fn quickjs_compiles(code: &str) -> bool {
  let Ok(rt) = rquickjs::Runtime::new() else {
    return true;
  };
  let Ok(ctx) = rquickjs::Context::full(&rt) else {
    return true;
  };
  ctx.with(|ctx| {
    let mut options = rquickjs::context::EvalOptions::default();
    options.strict = true;
    ctx
      .eval_with_options::<rquickjs::Value, _>(code, options)
      .is_ok()
  })
}

/// The TypeScript entry (as the runtime calls it): never panics, whatever the input.
pub fn typescript(code: &str) {
  let _ = prepare_like_a_worker(code, Language::TypeScript);
}

/// The JSON bridge: a gateway tool list and an MCP call's input against a schema.
pub fn json_bridge(data: &str) {
  let (tools, input) = data.split_once('\u{0}').unwrap_or((data, "{}"));
  let Ok(tools) = serde_json::from_str::<Value>(tools) else {
    return;
  };
  let catalog = Catalog::build(&tools);
  let _ = catalog.all_tools_json();
  let _ = catalog.search(input, 5);
  for entry in catalog.entries() {
    if let Ok(prepared) = prepare_input(entry, input) {
      let value: Value = serde_json::from_str(&prepared).expect("prepared MCP input is JSON");
      assert!(value.is_object(), "prepared MCP input is an object");
    }
  }
}

/// The `.d.ts` renderer: whatever the schema, the rendered type parses as TypeScript.
pub fn dts_render(schema: &str) {
  let Ok(schema) = serde_json::from_str::<Value>(schema) else {
    return;
  };
  let rendered = dts::input_type(&schema, "");
  let source = format!("declare function f(input: {rendered}): void;\n");
  let input = StringInput::new(&source, BytePos(1), BytePos(1 + source.len() as u32));
  let mut parser = Parser::new_from(Lexer::new(
    Syntax::Typescript(TsSyntax::default()),
    Default::default(),
    input,
    None,
  ));
  let parsed = parser.parse_module();
  assert!(
    parsed.is_ok() && parser.take_errors().is_empty(),
    "invalid declaration:\n{source}"
  );
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn seeds_hold() {
    source_check("const important = 1; important");
    source_check("}); (function () {");
    source_check("c,{ b =await f} ,{j} ,r");
    source_check("iP\n\n-->\rP/\n\n\n\nfsi\n-->\r\n");
    typescript("enum E { A }\nE.A");
    json_bridge(
      "[{\"name\":\"a\",\"source\":\"mcp\",\"parameters\":{\"required\":[\"x\"]}}]\u{0}{\"x\":1}",
    );
    dts_render("{\"type\":\"object\",\"properties\":{\"a-b\":{\"enum\":[1,\"x\",null]}}}");
  }
}
