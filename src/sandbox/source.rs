//! Cell source preparation: the async-function wrapper, the module-access check, the
//! completion value, and the map from executed positions back to the user's lines.
//!
//! A cell body runs as the body of `(async function () { … })`, so top-level `await` and
//! `return` work and user declarations shadow globals. The wrapper opens on the user's first
//! line, so line numbers never move; the completion value is applied by inserting `return (…)`
//! around the last expression statement, and the map undoes those few columns.

use super::depth;
use crate::error::{ErrorCode, Failure};
use swc_core::common::{BytePos, Span, Spanned};
use swc_core::ecma::ast::{
  Callee, Decl, ExportDecl, Expr, MemberProp, MetaPropExpr, MetaPropKind, Module, ModuleDecl,
  ModuleItem, Program as Ast, Script, Stmt, TsModuleDecl, TsNamespaceBody,
};
use swc_core::ecma::parser::{
  EsSyntax, Parser, StringInput, Syntax, TsSyntax, lexer::Lexer, stack_guard,
};
use swc_core::ecma::visit::{Visit, VisitWith};

pub const PREFIX: &str = "(async function () {";
pub const SUFFIX: &str = "\n})";
/// swc positions start at 1 (0 is the dummy span).
pub(crate) const START: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
  JavaScript,
  TypeScript,
}

impl Language {
  pub fn as_str(self) -> &'static str {
    match self {
      Language::JavaScript => "javascript",
      Language::TypeScript => "typescript",
    }
  }

  pub fn filename(self) -> &'static str {
    match self {
      Language::JavaScript => "cell.js",
      Language::TypeScript => "cell.ts",
    }
  }

  fn syntax(self) -> Syntax {
    match self {
      Language::JavaScript => Syntax::Es(EsSyntax::default()),
      Language::TypeScript => Syntax::Typescript(ts_syntax()),
    }
  }
}

/// TypeScript as `tsc` parses it. Decorators parse so that they are refused by name rather
/// than with a confusing syntax error (see `typescript::check_supported`).
pub(crate) fn ts_syntax() -> TsSyntax {
  TsSyntax {
    decorators: true,
    ..Default::default()
  }
}

/// A cell ready for the VM.
#[derive(Debug)]
pub struct Program {
  /// The wrapped JavaScript the VM compiles.
  pub code: String,
  pub language: Language,
  pub positions: PositionMap,
}

/// Maps a (line, byte column) of the executed code to the user's (line, character column).
#[derive(Debug)]
pub struct PositionMap {
  /// The user's own source, to count characters.
  user: String,
  executed_lines: Vec<usize>,
  mapping: Mapping,
}

#[derive(Debug)]
enum Mapping {
  /// JavaScript: executed = PREFIX + user with `(offset in executed, length)` insertions.
  Inserted(Vec<(usize, usize)>),
  /// TypeScript: `(generated line, generated column, offset in the wrapped TS source)`, sorted.
  Generated(Vec<(u32, u32, usize)>),
}

fn line_starts(text: &str) -> Vec<usize> {
  std::iter::once(0)
    .chain(text.match_indices('\n').map(|(i, _)| i + 1))
    .collect()
}

impl PositionMap {
  pub(crate) fn inserted(user: &str, executed: &str, insertions: Vec<(usize, usize)>) -> Self {
    PositionMap {
      user: user.to_string(),
      executed_lines: line_starts(executed),
      mapping: Mapping::Inserted(insertions),
    }
  }

  pub(crate) fn generated(user: &str, mut pairs: Vec<(u32, u32, usize)>) -> Self {
    pairs.sort_unstable();
    PositionMap {
      user: user.to_string(),
      executed_lines: Vec::new(),
      mapping: Mapping::Generated(pairs),
    }
  }

  /// The user's 1-based (line, column) for a 1-based executed (line, byte column).
  pub fn user_position(&self, line: u32, column: u32) -> Option<(u32, u32)> {
    let offset = match &self.mapping {
      Mapping::Inserted(insertions) => {
        let start = *self.executed_lines.get(line.checked_sub(1)? as usize)?;
        let mut offset = start + column.saturating_sub(1) as usize;
        let shift: usize = insertions
          .iter()
          .filter(|(at, len)| *at + *len <= offset)
          .map(|(_, len)| len)
          .sum();
        offset -= shift;
        let offset = offset.checked_sub(PREFIX.len())?;
        // QuickJS falls back to (line of the function, column 1) when it recorded no position
        // for the failing instruction; that points at indentation, not at code.
        if self
          .user
          .as_bytes()
          .get(offset)
          .is_some_and(u8::is_ascii_whitespace)
        {
          return None;
        }
        offset
      }
      Mapping::Generated(pairs) => {
        let (line, column) = (line.checked_sub(1)?, column.saturating_sub(1));
        let i = pairs.partition_point(|&(l, c, _)| (l, c) <= (line, column));
        let &(l, _, offset) = pairs.get(i.checked_sub(1)?)?;
        if l != line {
          return None;
        }
        offset.checked_sub(PREFIX.len())?
      }
    };
    Some(user_line_col(&self.user, offset))
  }
}

/// 1-based (line, character column) of a byte offset in `text` (clamped to its length).
pub fn user_line_col(text: &str, offset: usize) -> (u32, u32) {
  let mut offset = offset.min(text.len());
  while !text.is_char_boundary(offset) {
    offset -= 1;
  }
  let before = &text[..offset];
  let line = before.matches('\n').count() as u32 + 1;
  let line_start = before.rfind('\n').map_or(0, |i| i + 1);
  let column = before[line_start..].chars().count() as u32 + 1;
  (line, column)
}

/// Text of a wrapped source: the prefix, the user's code, the suffix.
pub fn wrap(code: &str) -> String {
  let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
  wrapped.push_str(PREFIX);
  wrapped.push_str(code);
  wrapped.push_str(SUFFIX);
  wrapped
}

/// Position in the user's code of a swc position in the wrapped source.
pub(crate) fn user_pos(user: &str, pos: BytePos) -> (u32, u32) {
  let offset = (pos.0.saturating_sub(START) as usize).saturating_sub(PREFIX.len());
  user_line_col(user, offset)
}

fn at(user: &str, pos: BytePos) -> String {
  let (line, column) = user_pos(user, pos);
  format!("line {line}, column {column}")
}

/// Stack the parser may use before its lexer reports end of input (the patched swc in
/// `vendor/swc_ecma_parser`): deep nesting then ends the parse with an error instead of
/// overflowing the stack, which would abort Node.
const PARSE_STACK: usize = 32 << 20;
/// Stack a thread needs to prepare any cell: room for `PARSE_STACK`, for walks of an AST up to
/// `depth::MAX_DEPTH` deep, and for swc dropping the longest chain a 1 MiB cell can hold when a
/// syntax error follows it (128 MiB in a debug build; the pages are committed only when an
/// input needs them). The worker threads have it.
pub const PREPARE_STACK: usize = 256 << 20;

/// Runs `parse` with the stack floor set; true when the floor or the parse deadline (set by
/// `prepare_until`) ended it.
fn guarded<T>(parse: impl FnOnce() -> T) -> (T, bool) {
  stack_guard::set_budget(Some(PARSE_STACK));
  let out = parse();
  let exhausted = stack_guard::exhausted();
  stack_guard::set_budget(None);
  (out, exhausted)
}

/// Why a guarded parse ended early, as the cell's failure.
fn cut_short(user: &str, pos: BytePos) -> Failure {
  if stack_guard::timed_out() {
    Failure::new(
      ErrorCode::Timeout,
      "code mode cell ran out of time (timeoutMs) before its source finished parsing.",
    )
  } else {
    Failure::invalid(format!(
      "SyntaxError: code is nested too deeply ({})",
      at(user, pos)
    ))
  }
}

fn too_deep(user: &str, pos: BytePos) -> String {
  format!("SyntaxError: code is nested too deeply ({})", at(user, pos))
}

/// For `npm run bench`: median microseconds to prepare `code` over `iterations` runs, measured
/// on a thread with a worker's stack.
pub fn median_prepare_micros(code: String, typescript: bool, iterations: u32) -> f64 {
  let language = if typescript {
    Language::TypeScript
  } else {
    Language::JavaScript
  };
  let measure = move || {
    let mut samples: Vec<f64> = (0..iterations.max(1))
      .map(|_| {
        let started = std::time::Instant::now();
        std::hint::black_box(prepare(&code, language)).ok();
        started.elapsed().as_secs_f64() * 1e6
      })
      .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
  };
  std::thread::Builder::new()
    .stack_size(PREPARE_STACK)
    .spawn(measure)
    .ok()
    .and_then(|thread| thread.join().ok())
    .unwrap_or(f64::NAN)
}

/// Parses the wrapped cell as a script; on failure explains it (module syntax or a syntax error).
pub(crate) fn parse_wrapped(
  user: &str,
  wrapped: &str,
  language: Language,
  failure: impl Fn(String) -> Failure,
) -> Result<Script, Failure> {
  let input = StringInput::new(
    wrapped,
    BytePos(START),
    BytePos(START + wrapped.len() as u32),
  );
  let ((parsed, recovered), exhausted) = guarded(|| {
    let mut parser = Parser::new_from(Lexer::new(
      language.syntax(),
      Default::default(),
      input,
      None,
    ));
    let parsed = parser.parse_script();
    (parsed, parser.take_errors())
  });
  if exhausted {
    let pos = match &parsed {
      Err(error) => error.span().lo,
      Ok(_) => recovered.first().map_or(BytePos(START), |e| e.span().lo),
    };
    let cut = cut_short(user, pos);
    // A TypeScript cell's syntax errors carry the transform's prefix; a timeout stays itself.
    return Err(match cut.code {
      ErrorCode::InvalidInput => failure(too_deep(user, pos)),
      _ => cut,
    });
  }
  let error = match parsed {
    Ok(mut script) if recovered.is_empty() => {
      depth::check(&mut script).map_err(|span| failure(too_deep(user, span.lo)))?;
      return Ok(script);
    }
    Ok(_) => recovered.into_iter().next(),
    Err(error) => Some(error),
  };
  // A script cannot hold `import`/`export`: look again as a module before calling it a typo.
  if let Some(found) = module_syntax(user, language) {
    return Err(found);
  }
  let Some(error) = error else {
    return Err(failure("SyntaxError: invalid program".into()));
  };
  let message = format!(
    "SyntaxError: {} ({})",
    error.kind().msg(),
    at(user, error.span().lo)
  );
  Err(failure(message))
}

/// When `user` parses as a module with import/export items or `import.meta`, the module error.
fn module_syntax(user: &str, language: Language) -> Option<Failure> {
  let syntax = match language {
    Language::JavaScript => Syntax::Es(EsSyntax {
      allow_return_outside_function: true,
      ..Default::default()
    }),
    Language::TypeScript => Syntax::Typescript(ts_syntax()),
  };
  // Positions shifted as if wrapped, so `at` applies unchanged.
  let start = START + PREFIX.len() as u32;
  let input = StringInput::new(user, BytePos(start), BytePos(start + user.len() as u32));
  let (parsed, exhausted) = guarded(|| {
    Parser::new_from(Lexer::new(syntax, Default::default(), input, None)).parse_module()
  });
  if exhausted {
    let pos = parsed
      .as_ref()
      .err()
      .map_or(BytePos(start), |e| e.span().lo);
    return Some(cut_short(user, pos));
  }
  let mut module: Module = parsed.ok()?;
  if let Err(span) = depth::check(&mut module) {
    return Some(Failure::invalid(too_deep(user, span.lo)));
  }
  for item in &module.body {
    if let ModuleItem::ModuleDecl(decl) = item {
      let what = match decl {
        ModuleDecl::Import(_) => "import declaration",
        ModuleDecl::TsImportEquals(equals) if !equals.is_export => "import declaration",
        _ => "export declaration",
      };
      return Some(module_failure(user, what, decl.span().lo));
    }
  }
  check_module_access(user, &Ast::Module(module)).err()
}

fn module_failure(user: &str, what: &str, pos: BytePos) -> Failure {
  Failure::invalid(format!(
    "module access is not allowed in code mode: {what} ({})",
    at(user, pos)
  ))
}

/// Finds `import()`, `import.meta` and `require(…)` / `x.require(…)` calls.
struct ModuleAccess {
  found: Option<(&'static str, BytePos)>,
}

impl Visit for ModuleAccess {
  fn visit_call_expr(&mut self, call: &swc_core::ecma::ast::CallExpr) {
    if self.found.is_some() {
      return;
    }
    let what = match &call.callee {
      Callee::Import(_) => Some("import()"),
      Callee::Expr(expr) => match &**expr {
        Expr::Ident(ident) if ident.sym == "require" => Some("require()"),
        Expr::Member(member) => match &member.prop {
          MemberProp::Ident(prop) if prop.sym == "require" => Some("require()"),
          _ => None,
        },
        _ => None,
      },
      _ => None,
    };
    if let Some(what) = what {
      self.found = Some((what, call.span.lo));
      return;
    }
    call.visit_children_with(self);
  }

  fn visit_meta_prop_expr(&mut self, meta: &MetaPropExpr) {
    if meta.kind == MetaPropKind::ImportMeta && self.found.is_none() {
      self.found = Some(("import.meta", meta.span.lo));
    }
  }
}

/// Rejects module access anywhere in a parsed program.
pub(crate) fn check_module_access(user: &str, program: &Ast) -> Result<(), Failure> {
  let mut visitor = ModuleAccess { found: None };
  program.visit_with(&mut visitor);
  match visitor.found {
    Some((what, pos)) => Err(module_failure(user, what, pos)),
    None => Ok(()),
  }
}

/// The statements of the cell function, after checking the program is exactly the wrapper.
pub(crate) fn cell_body<'a>(
  user: &str,
  wrapped: &str,
  script: &'a Script,
) -> Result<&'a [Stmt], Failure> {
  let body = match script.body.as_slice() {
    [Stmt::Expr(stmt)] => match &*stmt.expr {
      Expr::Paren(paren) => match &*paren.expr {
        Expr::Fn(function) => function.function.body.as_ref(),
        _ => None,
      },
      _ => None,
    },
    _ => None,
  };
  let expected_end = BytePos(START + (wrapped.len() - 1) as u32);
  match body {
    Some(block) if block.span.hi == expected_end => Ok(&block.stmts),
    _ => {
      let pos = match script.body.first() {
        Some(Stmt::Expr(stmt)) => stmt.span.hi,
        _ => BytePos(START),
      };
      Err(Failure::invalid(format!(
        "SyntaxError: unexpected '}}': the program closes a block it did not open ({})",
        at(user, pos)
      )))
    }
  }
}

/// The last statement that produces the completion value, if it is an expression statement.
pub(crate) fn completion_index(stmts: &[Stmt]) -> Option<usize> {
  let last = stmts.iter().rposition(|stmt| match stmt {
    Stmt::Empty(_) => false,
    Stmt::Decl(Decl::Fn(_) | Decl::TsInterface(_) | Decl::TsTypeAlias(_)) => false,
    Stmt::Decl(Decl::Var(var)) if var.declare => false,
    Stmt::Decl(Decl::Class(class)) if class.declare => false,
    Stmt::Decl(Decl::TsModule(module)) if module.declare || !instantiated(module) => false,
    Stmt::Decl(Decl::TsEnum(e)) if e.declare => false,
    _ => true,
  })?;
  matches!(stmts[last], Stmt::Expr(_)).then_some(last)
}

/// Whether a namespace holds any value (else, like an interface, it leaves no code behind).
fn instantiated(module: &TsModuleDecl) -> bool {
  fn has_values(body: &TsNamespaceBody) -> bool {
    match body {
      TsNamespaceBody::TsNamespaceDecl(inner) => !inner.declare && has_values(&inner.body),
      TsNamespaceBody::TsModuleBlock(block) => block.body.iter().any(|item| match item {
        ModuleItem::Stmt(Stmt::Decl(decl))
        | ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(ExportDecl { decl, .. })) => match decl {
          Decl::TsInterface(_) | Decl::TsTypeAlias(_) => false,
          Decl::TsModule(module) => !module.declare && instantiated(module),
          Decl::Var(var) => !var.declare,
          Decl::Class(class) => !class.declare,
          Decl::TsEnum(e) => !e.declare,
          _ => true,
        },
        ModuleItem::Stmt(Stmt::Empty(_)) => false,
        _ => true,
      }),
    }
  }
  module.body.as_ref().is_some_and(has_values)
}

/// swc starts the span of a token that follows an HTML-like comment (`-->` at the start of a
/// line, `<!--`: Annex B, which QuickJS accepts) at the comment itself. Inserting `return (`
/// there would turn the comment into code; this moves `lo` past such comments (and the
/// whitespace and ordinary comments between them) to the expression's first real token.
fn skip_html_comments(text: &str, mut lo: usize, hi: usize) -> usize {
  loop {
    let rest = &text[lo..hi];
    let trimmed = rest.trim_start();
    let skipped = rest.len() - trimmed.len();
    let comment_end =
      if trimmed.starts_with("-->") || trimmed.starts_with("<!--") || trimmed.starts_with("//") {
        // A single-line comment ends at any line terminator, not only `\n`.
        trimmed
          .find(['\n', '\r', '\u{2028}', '\u{2029}'])
          .unwrap_or(trimmed.len())
      } else if let Some(body) = trimmed.strip_prefix("/*") {
        match body.find("*/") {
          Some(end) => end + 4,
          None => return lo,
        }
      } else {
        return lo + skipped;
      };
    lo += skipped + comment_end;
  }
}

/// Prepares a cell in either language, on a thread with `PREPARE_STACK` of stack. swc is a large
/// parser: if it panics on some input (the fuzzer found such inputs), that is a program it
/// cannot read, reported as such.
pub fn prepare(code: &str, language: Language) -> Result<Program, Failure> {
  prepare_until(code, language, None)
}

/// `prepare`, giving up with `timeout` at `deadline`: the TypeScript grammar backtracks, and
/// some short hostile inputs would otherwise parse for minutes on a worker.
pub fn prepare_until(
  code: &str,
  language: Language,
  deadline: Option<std::time::Instant>,
) -> Result<Program, Failure> {
  stack_guard::set_deadline(deadline);
  let prepared = prepare_now(code, language);
  stack_guard::set_deadline(None);
  prepared
}

fn prepare_now(code: &str, language: Language) -> Result<Program, Failure> {
  // QuickJS reads source as a C string.
  if let Some(at) = code.find('\0') {
    let (line, column) = user_line_col(code, at);
    return Err(Failure::invalid(format!(
      "SyntaxError: the program contains a NUL character; write \\0 instead (line {line}, column {column})"
    )));
  }
  let prepared = std::panic::catch_unwind(|| match language {
    Language::JavaScript => prepare_javascript(code),
    Language::TypeScript => crate::typescript::prepare_typescript(code),
  });
  prepared.unwrap_or_else(|_| {
    Err(Failure::invalid(format!(
      "SyntaxError: the {} parser could not read this program",
      language.as_str()
    )))
  })
}

/// Prepares a JavaScript cell: parse, check, insert the completion `return`.
pub fn prepare_javascript(user: &str) -> Result<Program, Failure> {
  let wrapped = wrap(user);
  let script = parse_wrapped(user, &wrapped, Language::JavaScript, Failure::invalid)?;
  let stmts = cell_body(user, &wrapped, &script)?;
  check_module_access(user, &Ast::Script(script.clone()))?;
  let mut code = wrapped.clone();
  let mut insertions = Vec::new();
  if let Some(i) = completion_index(stmts) {
    let Stmt::Expr(stmt) = &stmts[i] else {
      unreachable!()
    };
    let span: Span = stmt.expr.span();
    let (lo, hi) = ((span.lo.0 - START) as usize, (span.hi.0 - START) as usize);
    let lo = skip_html_comments(&wrapped, lo, hi);
    code = format!(
      "{}return ({}){}",
      &wrapped[..lo],
      &wrapped[lo..hi],
      &wrapped[hi..]
    );
    insertions.push((lo, "return (".len()));
    insertions.push((hi + "return (".len(), 1));
  }
  let positions = PositionMap::inserted(user, &code, insertions);
  Ok(Program {
    code,
    language: Language::JavaScript,
    positions,
  })
}

#[cfg(test)]
mod tests {
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
}
