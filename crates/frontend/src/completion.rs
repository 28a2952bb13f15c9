//! The completion value: a cell's last expression statement becomes the function's `return`.
//!
//! JavaScript gets `return (…)` inserted around that statement's text, which moves only a few
//! columns (recorded for the position map); TypeScript gets the same rewrite in its AST before
//! the transform.

use super::wrapper::START;
use swc_core::common::{DUMMY_SP, Span, Spanned};
use swc_core::ecma::ast::{
  Decl, ExportDecl, Expr, ModuleDecl, ModuleItem, ParenExpr, ReturnStmt, Script, Stmt,
  TsModuleDecl, TsNamespaceBody,
};

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

/// The wrapped JavaScript with `return (…)` around the completion statement of `stmts` (the
/// parsed body of `wrapped`), and the `(offset, length)` of each insertion in the result.
pub(crate) fn insert_return(wrapped: &str, stmts: &[Stmt]) -> (String, Vec<(usize, usize)>) {
  let Some(i) = completion_index(stmts) else {
    return (wrapped.to_string(), Vec::new());
  };
  let Stmt::Expr(stmt) = &stmts[i] else {
    unreachable!()
  };
  let span: Span = stmt.expr.span();
  let (lo, hi) = ((span.lo.0 - START) as usize, (span.hi.0 - START) as usize);
  let lo = skip_html_comments(wrapped, lo, hi);
  let code = format!(
    "{}return ({}){}",
    &wrapped[..lo],
    &wrapped[lo..hi],
    &wrapped[hi..]
  );
  let insertions = vec![(lo, "return (".len()), (hi + "return (".len(), 1)];
  (code, insertions)
}

/// The statements of the cell function in a script `checks::cell_body` accepted.
pub(crate) fn cell_stmts(script: &mut Script) -> Option<&mut Vec<Stmt>> {
  let Some(Stmt::Expr(stmt)) = script.body.first_mut() else {
    return None;
  };
  let Expr::Paren(paren) = &mut *stmt.expr else {
    return None;
  };
  let Expr::Fn(function) = &mut *paren.expr else {
    return None;
  };
  function.function.body.as_mut().map(|body| &mut body.stmts)
}

/// In the AST: `expr;` → `return (expr);` for the completion statement, in place, so its span
/// (and so the position map) stays.
pub(crate) fn return_last(script: &mut Script) {
  if let Some(body) = cell_stmts(script)
    && let Some(i) = completion_index(body)
    && let Stmt::Expr(last) = &body[i]
  {
    let span = last.span;
    let arg = Expr::Paren(ParenExpr {
      span: DUMMY_SP,
      expr: last.expr.clone(),
    });
    body[i] = Stmt::Return(ReturnStmt {
      span,
      arg: Some(Box::new(arg)),
    });
  }
}
