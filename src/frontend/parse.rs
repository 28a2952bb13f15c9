//! The swc parse of a cell, bounded: a stack floor and the preparation deadline cut hostile
//! input short, and the parsed tree is bounded in depth (`depth`) before anything walks it.

use super::checks::{check_module_access, module_items};
use super::depth;
use super::positions::at;
use super::program::Language;
use super::wrapper::{PREFIX, START};
use crate::error::{ErrorCode, Failure};
use swc_core::common::{BytePos, Spanned};
use swc_core::ecma::ast::{Module, Program as Ast, Script};
use swc_core::ecma::parser::{
  EsSyntax, Parser, StringInput, Syntax, TsSyntax, lexer::Lexer, stack_guard,
};

/// TypeScript as `tsc` parses it. Decorators parse so that they are refused by name rather
/// than with a confusing syntax error (see `checks::check_supported`).
pub(crate) fn ts_syntax() -> TsSyntax {
  TsSyntax {
    decorators: true,
    ..Default::default()
  }
}

fn syntax(language: Language) -> Syntax {
  match language {
    Language::JavaScript => Syntax::Es(EsSyntax::default()),
    Language::TypeScript => Syntax::Typescript(ts_syntax()),
  }
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
    Failure::invalid(too_deep(user, pos))
  }
}

fn too_deep(user: &str, pos: BytePos) -> String {
  format!("SyntaxError: code is nested too deeply ({})", at(user, pos))
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
      syntax(language),
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
pub(crate) fn module_syntax(user: &str, language: Language) -> Option<Failure> {
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
  if let Some(found) = module_items(user, &module) {
    return Some(found);
  }
  check_module_access(user, &Ast::Module(module)).err()
}
