//! The swc parse of a cell, bounded: a stack floor and the preparation deadline cut hostile
//! input short (`guard`), and the parsed tree is bounded in depth (`depth`) before anything
//! walks it.

use super::checks::{check_module_access, module_items};
use super::depth;
use super::guard::{self, Cut};
use super::positions::at;
use super::program::Language;
use super::wrapper::{PREFIX, START};
use crate::error::Failure;
use swc_core::common::{BytePos, Spanned};
use swc_core::ecma::ast::{Module, Program as Ast, Script};
use swc_core::ecma::parser::{EsSyntax, PResult, StringInput, Syntax, TsSyntax, lexer::Lexer};

/// TypeScript as `tsc` parses it. Decorators parse so that they are refused by name rather
/// than with a confusing syntax error (see `checks::check_supported`).
pub(crate) fn ts_syntax() -> TsSyntax {
  TsSyntax {
    decorators: true,
    ..Default::default()
  }
}

/// JavaScript as QuickJS runs it: swc's default syntax plus the finished proposals it leaves
/// behind an option, so that the front end refuses nothing the engine accepts (explicit resource
/// management: `using`, `await using`; TypeScript cells parse them already).
pub(crate) fn es_syntax() -> EsSyntax {
  EsSyntax {
    explicit_resource_management: true,
    ..Default::default()
  }
}

fn syntax(language: Language) -> Syntax {
  match language {
    Language::JavaScript => Syntax::Es(es_syntax()),
    Language::TypeScript => Syntax::Typescript(ts_syntax()),
  }
}

/// Stack a parse may use before its guard reports end of input: deep nesting then ends the
/// parse with an error instead of overflowing the stack, which would abort Node.
const PARSE_STACK: usize = 32 << 20;
/// Stack a thread needs to prepare any cell: room for `PARSE_STACK`, for walks of an AST up to
/// `depth::MAX_DEPTH` deep, and for swc walking the longest chain a 1 MiB cell can hold, which
/// it builds in a loop and so past the guard: dropping it when a syntax error follows (128 MiB
/// in a debug build), checking it as an assignment target (`a.b.b… = 1`). The pages are
/// committed only when an input needs them. The worker threads have it.
pub const PREPARE_STACK: usize = 256 << 20;

/// A lexer over `text`, whose first byte is at swc position `start`.
fn lexer(text: &str, start: u32, syntax: Syntax) -> Lexer<'_> {
  let end = start + text.len() as u32;
  let input = StringInput::new(text, BytePos(start), BytePos(end));
  Lexer::new(syntax, Default::default(), input, None)
}

fn timeout() -> Failure {
  guard::out_of_time("its source finished parsing")
}

fn too_deep(user: &str, pos: BytePos) -> String {
  format!("SyntaxError: code is nested too deeply ({})", at(user, pos))
}

/// Parses the wrapped cell as a script; on failure explains it (module syntax or a syntax error).
pub fn parse_wrapped(
  user: &str,
  wrapped: &str,
  language: Language,
  failure: impl Fn(String) -> Failure,
) -> Result<Script, Failure> {
  let lexer = lexer(wrapped, START, syntax(language));
  let ((parsed, recovered), cut) = guard::parse(lexer, PARSE_STACK, |parser| {
    let parsed = parser.parse_script();
    (parsed, parser.take_errors())
  });
  if let Some(cut) = cut {
    // A TypeScript cell's syntax errors carry the transform's prefix; a timeout stays itself.
    return Err(match cut {
      Cut::Floor(pos) => failure(too_deep(user, pos)),
      Cut::Deadline => timeout(),
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
      ..es_syntax()
    }),
    Language::TypeScript => Syntax::Typescript(ts_syntax()),
  };
  let (parsed, cut) = parse_module(user, syntax);
  if let Some(cut) = cut {
    return Some(match cut {
      Cut::Floor(pos) => Failure::invalid(too_deep(user, pos)),
      Cut::Deadline => timeout(),
    });
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

/// Parses the user's code, unwrapped, as a module, guarded like the cell's own parse. Positions
/// are shifted as if wrapped, so `at` applies unchanged.
pub(crate) fn parse_module(user: &str, syntax: Syntax) -> (PResult<Module>, Option<Cut>) {
  let lexer = lexer(user, START + PREFIX.len() as u32, syntax);
  guard::parse(lexer, PARSE_STACK, |parser| parser.parse_module())
}
