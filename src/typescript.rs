//! TypeScript cells: swc's parser and TypeScript transform, with positions mapped back.
//!
//! One parse serves everything: the module-access check, the completion value (the last
//! expression statement becomes a `return` in the AST) and the transform (types erased; enums,
//! namespaces and parameter properties lowered). The emitter records, for each token it writes,
//! the source position it came from; that list is the map from the executed code back to the
//! user's lines. No type checking, no module resolution.

use crate::error::Failure;
use crate::sandbox::source::{
  Language, PositionMap, Program, START, cell_body, check_module_access, completion_index,
  parse_wrapped, wrap,
};
use swc_core::common::{
  DUMMY_SP, GLOBALS, Globals, Mark, SourceMap, source_map::SmallPos, sync::Lrc,
};
use swc_core::ecma::ast::{EsVersion, Expr, ParenExpr, Program as Ast, ReturnStmt, Stmt};
use swc_core::ecma::codegen::{Config, Emitter, text_writer::JsWriter};
use swc_core::ecma::transforms::base::{
  fixer::fixer,
  helpers::{HELPERS, Helpers, inject_helpers},
  hygiene::hygiene,
  resolver,
};
use swc_core::ecma::transforms::typescript::{Config as TsConfig, typescript};

fn failure(message: String) -> Failure {
  Failure::invalid(format!("typescript transform failed: {message}"))
}

/// Transforms a TypeScript cell into the wrapped JavaScript the VM runs.
pub fn prepare_typescript(user: &str) -> Result<Program, Failure> {
  let wrapped = wrap(user);
  let mut script = parse_wrapped(user, &wrapped, Language::TypeScript, failure)?;
  cell_body(user, &wrapped, &script)?;
  check_module_access(user, &Ast::Script(script.clone()))?;

  // Completion value: `expr;` → `return (expr);` in place, so its span (and map) stays.
  if let Some(Stmt::Expr(stmt)) = script.body.first_mut() {
    if let Expr::Paren(paren) = &mut *stmt.expr {
      if let Expr::Fn(function) = &mut *paren.expr {
        if let Some(body) = function.function.body.as_mut() {
          if let Some(i) = completion_index(&body.stmts) {
            if let Stmt::Expr(last) = &body.stmts[i] {
              let span = last.span;
              let arg = Expr::Paren(ParenExpr {
                span: DUMMY_SP,
                expr: last.expr.clone(),
              });
              body.stmts[i] = Stmt::Return(ReturnStmt {
                span,
                arg: Some(Box::new(arg)),
              });
            }
          }
        }
      }
    }
  }

  let cm: Lrc<SourceMap> = Default::default();
  let (code, pairs) = GLOBALS.set(&Globals::new(), || {
    let mut program = Ast::Script(script);
    let unresolved = Mark::new();
    let top_level = Mark::new();
    HELPERS.set(&Helpers::new(false), || {
      program.mutate(&mut resolver(unresolved, top_level, true));
      let config = TsConfig {
        native_class_properties: true,
        ..Default::default()
      };
      program.mutate(&mut typescript(config, unresolved, top_level));
      program.mutate(&mut inject_helpers(unresolved));
      program.mutate(&mut hygiene());
      program.mutate(&mut fixer(None));
    });
    let mut buf = Vec::with_capacity(wrapped.len());
    let mut pairs = Vec::new();
    {
      let mut emitter = Emitter {
        cfg: Config::default()
          .with_target(EsVersion::latest())
          .with_ascii_only(true),
        comments: None,
        cm: cm.clone(),
        wr: JsWriter::new(cm.clone(), "\n", &mut buf, Some(&mut pairs)),
      };
      emitter
        .emit_program(&program)
        .map_err(|e| failure(format!("could not emit JavaScript: {e}")))?;
    }
    let code = String::from_utf8(buf).map_err(|_| failure("emitted code was not UTF-8".into()))?;
    Ok::<_, Failure>((code, pairs))
  })?;

  // The emitted program must still be exactly one script with no module access.
  let output = parse_wrapped(user, &code, Language::JavaScript, failure);
  if let Ok(script) = &output {
    check_module_access(user, &Ast::Script(script.clone()))?;
  }
  let pairs = pairs
    .into_iter()
    .filter(|(pos, _)| !pos.is_dummy() && pos.0 >= START)
    .map(|(pos, lc)| (lc.line, lc.col, (pos.to_u32() - START) as usize))
    .collect();
  Ok(Program {
    code,
    language: Language::TypeScript,
    positions: PositionMap::generated(user, pairs),
  })
}

#[cfg(test)]
mod tests {
  use super::*;

  fn ts(code: &str) -> Program {
    prepare_typescript(code).unwrap_or_else(|e| panic!("{code}: {e}"))
  }

  #[test]
  fn strips_types_and_returns_the_last_expression() {
    let p = ts("const a: number = 1;\ninterface X { y: string }\na + 1 as number");
    assert!(p.code.contains("const a = 1"), "{}", p.code);
    assert!(
      p.code.contains("return (a + 1)") || p.code.contains("return a + 1"),
      "{}",
      p.code
    );
    assert!(!p.code.contains("interface"));
  }

  #[test]
  fn lowers_enums_namespaces_and_parameter_properties() {
    let p = ts(
      "enum Color { Red, Green }\nnamespace NS { export const x = 1 }\nclass P { constructor(private v: number) {} }\nColor.Green",
    );
    assert!(
      p.code.contains("Color[\"Green\"]") || p.code.contains("Color.Green"),
      "{}",
      p.code
    );
    assert!(p.code.contains("this.v = v"), "{}", p.code);
  }

  #[test]
  fn type_only_imports_are_module_access() {
    let err = prepare_typescript("import type { X } from './x';\nconst y: X = 1").unwrap_err();
    assert!(
      err.message.starts_with("module access is not allowed"),
      "{}",
      err.message
    );
  }

  #[test]
  fn diagnostics_name_the_user_line() {
    let err = prepare_typescript("const a: number = 1;\nlet b: = 2;").unwrap_err();
    assert!(
      err.message.starts_with("typescript transform failed: "),
      "{}",
      err.message
    );
    assert!(err.message.contains("line 2"), "{}", err.message);
  }

  #[test]
  fn positions_map_to_the_user_source() {
    let p = ts("enum E { A }\nconst x: number = 1;\n  null!.foo;");
    let line = p.code.lines().position(|l| l.contains("null.foo")).unwrap() as u32 + 1;
    let col = p
      .code
      .lines()
      .nth(line as usize - 1)
      .unwrap()
      .find("null")
      .unwrap() as u32
      + 1;
    assert_eq!(
      p.positions.user_position(line, col).map(|(l, _)| l),
      Some(3)
    );
  }
}
