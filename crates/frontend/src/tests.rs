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
    (
      "parenthesised types",
      format!(
        "let v: {}string{} = ''",
        "(".repeat(n / 4),
        ")".repeat(n / 4)
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
    // Lines after it: the error points at the nesting on line 1, not at the end of the input.
    let err = prepare_big(format!("{code}\n1\n2"), Language::TypeScript).unwrap_err();
    assert!(
      err
        .message
        .contains("code is nested too deeply (line 1, column "),
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

/// Asserts that every shape, in each language, fails as too deeply nested on a worker's stack.
fn assert_too_deep(shapes: &[(&str, String)], languages: &[Language]) {
  for (shape, code) in shapes {
    for &language in languages {
      let err = prepare_big(code.clone(), language).unwrap_err();
      assert_eq!(err.code, ErrorCode::InvalidInput, "{shape} {language:?}");
      assert!(
        err.message.contains("code is nested too deeply (line "),
        "{shape} {language:?}: {}",
        err.message
      );
    }
  }
}

#[test]
fn hostile_nesting_ends_the_parse_with_an_error() {
  let n = 200_000;
  let nest =
    |open: &str, inner: &str, close: &str| format!("{}{inner}{}", open.repeat(n), close.repeat(n));
  let both = [
    ("parens", nest("(", "1", ")")),
    ("arrays", nest("[", "1", "]")),
    ("spread arrays", nest("[...", "a", "]")),
    ("objects", nest("({ a: ", "1", " })")),
    ("arrow chain", "() => ".repeat(n / 2) + "1"),
    ("arrow bodies", nest("() => { return ", "1", " }")),
    ("async arrows", "async () => ".repeat(n / 4) + "1"),
    ("templates", nest("`${", "1", "}`")),
    ("tagged templates", nest("f`${", "1", "}`")),
    ("unary", "!".repeat(4 * n) + "1"),
    ("mixed unary", "- + ~ ".repeat(n) + "1"),
    ("typeof", "typeof ".repeat(n) + "a"),
    ("await", "await ".repeat(n) + "a"),
    ("new", "new ".repeat(n) + "a"),
    ("conditional chain", "a ? b : ".repeat(n) + "c"),
    ("conditional tests", nest("a ? ", "b", " : c")),
    ("assignment chain", "a = ".repeat(n) + "1"),
    ("exponent chain", "2 ** ".repeat(n) + "2"),
    ("calls in arguments", nest("f(", "1", ")")),
    ("functions", nest("function f() {", "", "}")),
    ("classes", nest("class A { m() {", "", "} }")),
    ("if chain", "if (a) ".repeat(n) + ";"),
    (
      "labels",
      (0..n / 4).map(|i| format!("l{i}: ")).collect::<String>() + ";",
    ),
    ("do-while", nest("do ", ";", " while (0)")),
    ("try blocks", nest("try {", "", "} finally {}")),
    ("destructuring", nest("[", "a", "]") + " = []"),
  ];
  assert_too_deep(&both, &[Language::JavaScript, Language::TypeScript]);
  let typescript = [
    (
      "generic types",
      format!("let x: {}", nest("Array<", "number", ">")),
    ),
    ("type arguments", nest("f<Array<", "number", ">>") + "()"),
    ("angle-bracket assertions", "<any>".repeat(n) + "x"),
    ("JSX-like tags", nest("<a>", "x", "</a>")),
    (
      "function types",
      "let x: ".to_string() + &"() => ".repeat(n) + "number",
    ),
    ("union types", format!("let x: {}", nest("(A | ", "B", ")"))),
    (
      "conditional types",
      "type T = ".to_string() + &"A extends B ? C : ".repeat(n) + "D",
    ),
    ("keyof", "let x: ".to_string() + &"keyof ".repeat(n) + "A"),
    (
      "tuple types",
      format!("let x: {}", nest("[", "number", "]")),
    ),
    (
      "object types",
      format!("let x: {}", nest("{ a: ", "number", " }")),
    ),
    (
      "mapped types",
      format!("type M = {}", nest("{ [K in ", "A", "]: B }")),
    ),
    (
      "template literal types",
      format!("type L = {}", nest("`${", "A", "}`")),
    ),
    ("satisfies", nest("(", "a", " satisfies A)")),
    ("namespaces", nest("namespace A {", "", "}")),
    // The `import A = B.C` rewrite parses the cell once more before its own parse.
    (
      "after an import alias",
      "import A = B.C;\n".to_string() + &nest("(", "1", ")"),
    ),
  ];
  assert_too_deep(&typescript, &[Language::TypeScript]);
}

#[test]
fn chains_built_in_loops_fit_the_worker_stack() {
  // swc parses these chains in loops, so the guard never sees their depth; it walks them
  // recursively all the same (checking an assignment target, dropping the tree after a syntax
  // error). A 1 MiB cell's longest must fit `PREPARE_STACK`; `depth` refuses what parses.
  let member = ".b".repeat(520_000);
  let shapes = [
    format!("a{member} = 1"),
    format!("[a{member}] = 1"),
    format!("a{member}++"),
    format!("a{} +;", "?.b".repeat(340_000)),
    format!("a{} +;", "[0]".repeat(340_000)),
    format!("f{} +;", "``".repeat(500_000)),
  ];
  for code in shapes {
    for language in [Language::JavaScript, Language::TypeScript] {
      let err = prepare_big(code.clone(), language).unwrap_err();
      assert_eq!(err.code, ErrorCode::InvalidInput, "{}", &code[..12]);
    }
  }
  for code in [
    format!("a{} +;", " as any".repeat(140_000)),
    format!("a{} +;", "!".repeat(1_000_000)),
    format!("let x: number{} = ;", "[]".repeat(500_000)),
  ] {
    let err = prepare_big(code.clone(), Language::TypeScript).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput, "{}", &code[..12]);
  }
}

#[test]
fn the_preparation_deadline_cuts_the_parse_short() {
  let code = "let a = [".to_string() + &"1, ".repeat(10_000) + "];\na";
  for language in [Language::JavaScript, Language::TypeScript] {
    let past = Some(std::time::Instant::now());
    let err = prepare_until(&code, language, past, &CODE_MODE_NAMES).unwrap_err();
    assert_eq!(
      err.code,
      ErrorCode::Timeout,
      "{language:?}: {}",
      err.message
    );
    assert_eq!(
      err.message,
      "code mode cell ran out of time (timeoutMs) before its source finished parsing."
    );
    // The deadline was this preparation's only.
    assert!(prepare(&code, language).is_ok());
    let later = Some(std::time::Instant::now() + std::time::Duration::from_secs(600));
    assert!(prepare_until(&code, language, later, &CODE_MODE_NAMES).is_ok());
  }
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

#[test]
fn explicit_resource_management_parses_in_javascript() {
  // QuickJS runs `using` and `await using`; the front end used to refuse them in JavaScript
  // (swc's default syntax leaves them out) while it accepted them in TypeScript.
  let p = js("using a = { [Symbol.dispose]() {} };\nawait using b = null;\na").unwrap();
  assert_eq!(
    p.code,
    "(async function () {using a = { [Symbol.dispose]() {} };\nawait using b = null;\nreturn (a)\n})"
  );
  // Positions after the declarations still map back (`null.x` after `return (`).
  let p = js("using a = null;\nnull.x").unwrap();
  assert_eq!(p.positions.user_position(2, 9), Some((2, 1)));
  // `using` stays an identifier where it is one, and a bad declaration is still an error.
  assert_eq!(
    js("let using = 1;\nusing").unwrap().code,
    "(async function () {let using = 1;\nreturn (using)\n})"
  );
  let err = js("using a;").unwrap_err();
  assert!(err.message.starts_with("SyntaxError:"), "{}", err.message);
  for language in [Language::JavaScript, Language::TypeScript] {
    assert!(
      prepare("await using x = null; 1", language).is_ok(),
      "{language:?}"
    );
  }
}

thread_local! {
  static ALLOCATED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

struct Counting;

// SAFETY: forwards to the system allocator unchanged; only counts the bytes asked for.
unsafe impl std::alloc::GlobalAlloc for Counting {
  unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
    ALLOCATED.with(|a| a.set(a.get() + layout.size() as u64));
    // SAFETY: the caller's layout, passed on.
    unsafe { std::alloc::System.alloc(layout) }
  }
  unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
    // SAFETY: `ptr` came from `System.alloc` with this layout.
    unsafe { std::alloc::System.dealloc(ptr, layout) }
  }
  unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new: usize) -> *mut u8 {
    ALLOCATED.with(|a| a.set(a.get() + new as u64));
    // SAFETY: as `dealloc`, and `new` is the caller's.
    unsafe { std::alloc::System.realloc(ptr, layout, new) }
  }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Bytes this thread has asked the allocator for so far.
pub(crate) fn allocated() -> u64 {
  ALLOCATED.with(std::cell::Cell::get)
}
