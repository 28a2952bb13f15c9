//! The front end's JavaScript path: completion, module access, wrapper escapes, positions,
//! and hostile nesting.

use super::checks::cell_body;
use super::completion::completion_index;
use super::parse::module_syntax;
use super::wrapper::PREFIX;
use super::*;
use crate::error::ErrorCode;

/// `prepare` as the workers run it: on a thread with `PREPARE_STACK` of stack.
fn prepare_big(code: String, language: Language) -> Result<Program, Failure> {
  std::thread::Builder::new()
    .stack_size(PREPARE_STACK)
    .spawn(move || prepare(&code, language))
    .expect("a test thread")
    .join()
    .expect("prepare never panics")
}

fn js(code: &str) -> Result<Program, Failure> {
  prepare_javascript(code)
}

#[test]
fn completion_value_is_inserted() {
  assert_eq!(
    js("1 + 1").unwrap().code,
    "(async function () {return (1 + 1)\n})"
  );
  assert_eq!(
    js("let a = 2;\na * 3; // x").unwrap().code,
    "(async function () {let a = 2;\nreturn (a * 3); // x\n})"
  );
  assert_eq!(
    js("let a = 2;").unwrap().code,
    "(async function () {let a = 2;\n})"
  );
  assert_eq!(
    js("f();\nfunction f() {}\n;").unwrap().code,
    "(async function () {return (f());\nfunction f() {}\n;\n})"
  );
  assert_eq!(
    js("return 5").unwrap().code,
    "(async function () {return 5\n})"
  );
  assert_eq!(
    js("if (x) { y }").unwrap().code,
    "(async function () {if (x) { y }\n})"
  );
}

#[test]
fn module_access_is_rejected() {
  for (code, what) in [
    ("import fs from 'fs'", "import declaration"),
    ("export const x = 1", "export declaration"),
    ("const m = await import('fs')", "import()"),
    ("require('fs')", "require()"),
    ("const x = 1;\nmodule.require('fs')", "require()"),
    ("import.meta.url", "import.meta"),
  ] {
    let err = js(code).unwrap_err();
    assert!(err.message.contains(what), "{code}: {}", err.message);
    assert!(
      err.message.starts_with("module access is not allowed"),
      "{}",
      err.message
    );
  }
  let err = js("const x = 1;\nconst y = require('fs');").unwrap_err();
  assert!(
    err.message.ends_with("(line 2, column 11)"),
    "{}",
    err.message
  );
}

#[test]
fn no_false_positives() {
  for code in [
    "const important = 1; important",
    "'import docs'",
    "const requirement = 2; requirement",
    "const o = { import: 1, require: 2 }; o.import + o.require",
    "// import fs from 'fs'\n1",
    "`require('x')`",
  ] {
    assert!(js(code).is_ok(), "{code}: {:?}", js(code).err());
  }
}

#[test]
fn wrapper_cannot_be_escaped() {
  for code in [
    "}); (function () {",
    "})(); (async function () {",
    "}, function () {",
    "}) || (function () {",
  ] {
    let err = js(code).unwrap_err();
    assert!(
      err.message.starts_with("SyntaxError"),
      "{code}: {}",
      err.message
    );
  }
}

#[test]
fn syntax_errors_point_at_user_lines() {
  let err = js("let a = 1;\n  a +* 2;").unwrap_err();
  assert!(err.message.starts_with("SyntaxError:"), "{}", err.message);
  assert!(err.message.contains("(line 2, column "), "{}", err.message);
  let err = js("const x = ;").unwrap_err();
  assert!(
    err.message.ends_with("(line 1, column 11)"),
    "{}",
    err.message
  );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
  let n = 200_000;
  let shapes: Vec<(&str, String)> = vec![
    ("brackets", format!("{}{}", "[".repeat(n), "]".repeat(n))),
    ("parens", format!("{}1{}", "(".repeat(n), ")".repeat(n))),
    ("blocks", format!("{}{}", "{".repeat(n), "}".repeat(n))),
    ("unary", format!("{}1", "!".repeat(n))),
    ("arrows", "() => ".repeat(n / 4) + "1"),
    (
      "templates",
      format!("{}1{}", "`${".repeat(n / 2), "}`".repeat(n / 2)),
    ),
    ("binary chain", format!("1{}", " + 1".repeat(n))),
    ("member chain", format!("a{}", ".b".repeat(n))),
    ("call chain", format!("f{}", "()".repeat(n))),
    (
      "else-if chain",
      format!("if (1) {{}}{}", " else if (1) {}".repeat(3_000)),
    ),
  ];
  // swc drops a partial chain recursively when a syntax error follows it: the longest chain
  // 1 MiB can hold must fit the preparation thread's stack.
  for language in [Language::JavaScript, Language::TypeScript] {
    let err = prepare_big(format!("a{} +;", ".b".repeat(524_000)), language).unwrap_err();
    assert!(
      err.message.contains("SyntaxError: Expression expected"),
      "{}",
      err.message
    );
  }
  for (shape, code) in shapes {
    for language in [Language::JavaScript, Language::TypeScript] {
      let err = prepare_big(code.clone(), language).unwrap_err();
      assert_eq!(err.code, ErrorCode::InvalidInput, "{shape}");
      assert!(
        err
          .message
          .contains("SyntaxError: code is nested too deeply (line 1, column "),
        "{shape} {language:?}: {}",
        err.message
      );
    }
  }
  for (shape, code) in [
    (
      "generic types",
      format!(
        "let x: {}number{} = []",
        "Array<".repeat(n / 4),
        ">".repeat(n / 4)
      ),
    ),
    ("qualified names", format!("let x: a{} = 1", ".b".repeat(n))),
    ("namespaces", format!("namespace a{} {{}}", ".b".repeat(n))),
    (
      "object types",
      format!(
        "let x: {}number{} = 1 as any",
        "{ a: ".repeat(n / 4),
        " }".repeat(n / 4)
      ),
    ),
  ] {
    let err = prepare_big(code, Language::TypeScript).unwrap_err();
    assert!(
      err.message.contains("code is nested too deeply"),
      "{shape}: {}",
      err.message
    );
  }
  // Ordinary nesting is untouched.
  let nested = format!("{}1{}", "[".repeat(100), "]".repeat(100));
  assert!(prepare_big(nested.clone(), Language::JavaScript).is_ok());
  assert!(prepare_big(nested, Language::TypeScript).is_ok());
  assert!(prepare_big(format!("1{}", " + 1".repeat(1_500)), Language::JavaScript).is_ok());
}

#[test]
fn positions_map_back() {
  let p = js("let a = 1;\nnull.x").unwrap();
  // `null.x` now sits after `return (` on line 2.
  assert_eq!(p.positions.user_position(2, 9), Some((2, 1)));
  let p = js("é; null.x").unwrap();
  let col = (PREFIX.len() + "é; ".len() + "return (".len()) as u32 + 1;
  assert_eq!(p.positions.user_position(1, col), Some((1, 4)));
}

#[test]
fn import_equals_is_named_an_import() {
  let err = module_syntax("import fs = require('fs')", Language::TypeScript).unwrap();
  assert_eq!(
    err.message,
    "module access is not allowed in code mode: import declaration (line 1, column 1)"
  );
  let err = module_syntax("export import X = N.Y", Language::TypeScript).unwrap();
  assert!(
    err.message.contains("export declaration"),
    "{}",
    err.message
  );
}

#[test]
fn positions_in_indentation_are_not_reported() {
  // QuickJS reports (function line, column 1) when it has no position for an instruction.
  let p = js("class A {\n  get() {\n    return this.v.n\n  }\n}").unwrap();
  assert_eq!(p.positions.user_position(2, 1), None);
  assert_eq!(p.positions.user_position(2, 3), Some((2, 3)));
  assert_eq!(p.positions.user_position(3, 12), Some((3, 12)));
}

#[test]
fn type_only_namespaces_leave_the_completion_value() {
  let script = |code: &str| {
    let wrapped = wrap(code);
    let script = parse_wrapped(code, &wrapped, Language::TypeScript, Failure::invalid).unwrap();
    let stmts = cell_body(code, &wrapped, &script).unwrap().to_vec();
    completion_index(&stmts)
  };
  assert_eq!(script("1;\nnamespace T { export interface A {} }"), Some(0));
  assert_eq!(script("1;\nnamespace T.U { export type A = 1 }"), Some(0));
  assert_eq!(script("1;\nnamespace T { export const a = 1 }"), None);
  assert_eq!(
    script("1;\nnamespace T { namespace U { const a = 1 } }"),
    None
  );
}
