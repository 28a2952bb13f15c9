//! Checks on a parsed cell: the program is exactly the wrapper, reaches no module, and uses
//! no syntax that parses but cannot run.

use super::positions::at;
use super::wrapper::START;
use crate::error::Failure;
use swc_core::common::{BytePos, Spanned};
use swc_core::ecma::ast::{
  AutoAccessor, CallExpr, Callee, Decorator, Expr, Key, MemberProp, MetaPropExpr, MetaPropKind,
  Module, ModuleDecl, ModuleItem, Program as Ast, PropName, Script, Stmt,
};
use swc_core::ecma::visit::{Visit, VisitWith};

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

/// The module error for the first import or export item of `module`, if it has one.
pub(crate) fn module_items(user: &str, module: &Module) -> Option<Failure> {
  module.body.iter().find_map(|item| {
    let ModuleItem::ModuleDecl(decl) = item else {
      return None;
    };
    let what = match decl {
      ModuleDecl::Import(_) => "import declaration",
      ModuleDecl::TsImportEquals(equals) if !equals.is_export => "import declaration",
      _ => "export declaration",
    };
    Some(module_failure(user, what, decl.span().lo))
  })
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
  fn visit_call_expr(&mut self, call: &CallExpr) {
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

/// Rejects what parses but cannot run: decorators (no transform for them here) and
/// `accessor` fields with computed names. The message names the first one and where it is.
pub(crate) fn check_supported(user: &str, script: &Script) -> Result<(), String> {
  #[derive(Default)]
  struct Unsupported(Option<(&'static str, BytePos)>);
  impl Visit for Unsupported {
    fn visit_decorator(&mut self, decorator: &Decorator) {
      self
        .0
        .get_or_insert(("decorators are not supported", decorator.span.lo));
    }
    fn visit_auto_accessor(&mut self, accessor: &AutoAccessor) {
      if matches!(accessor.key, Key::Public(PropName::Computed(_))) {
        self.0.get_or_insert((
          "`accessor` fields with computed names are not supported",
          accessor.span.lo,
        ));
      }
      accessor.visit_children_with(self);
    }
  }
  let mut found = Unsupported::default();
  script.visit_with(&mut found);
  match found.0 {
    Some((what, pos)) => Err(format!("{what} ({})", at(user, pos))),
    None => Ok(()),
  }
}
