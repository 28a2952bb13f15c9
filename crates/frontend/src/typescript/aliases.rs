//! `import A = NS.B` in a cell: an alias, not module access. swc parses it only where module
//! items may stand, so it is rewritten to a `var` before the parse of the cell, and aliases
//! that name only types are dropped after the resolver, as `tsc` drops them.

use crate::parse::{parse_module, ts_syntax};
use crate::wrapper::{PREFIX, START};
use std::collections::{HashMap, HashSet};
use swc_core::common::BytePos;
use swc_core::ecma::ast::{
  Decl, Expr, Id, ModuleDecl, ModuleItem, Prop, Stmt, TsModuleRef, TsType,
};
use swc_core::ecma::parser::Syntax;
use swc_core::ecma::visit::{Visit, VisitWith};

/// Rewrites each top-level `import A = NS.B` (an alias, not module access) to `var    A = NS.B`
/// of the same length: swc only parses the alias where module items may stand, and the cell
/// is a function body. Returns the text and the wrapped positions of the rewritten statements.
pub(super) fn alias_imports(user: &str) -> Option<(String, Vec<BytePos>)> {
  if !user.contains("import") {
    return None;
  }
  // Cut short, the parse of the cell itself reports why.
  let (parsed, cut) = parse_module(user, Syntax::Typescript(ts_syntax()));
  let module = parsed.ok().filter(|_| cut.is_none())?;
  let base = START + PREFIX.len() as u32;
  let mut text = user.to_string();
  let mut positions = Vec::new();
  for item in &module.body {
    if let ModuleItem::ModuleDecl(ModuleDecl::TsImportEquals(decl)) = item {
      let at = (decl.span.lo.0 - base) as usize;
      if !decl.is_export
        && !decl.is_type_only
        && matches!(decl.module_ref, TsModuleRef::TsEntityName(_))
        && text[at..].starts_with("import")
      {
        text.replace_range(at..at + "import".len(), "var   ");
        positions.push(decl.span.lo);
      }
    }
  }
  (!positions.is_empty()).then_some((text, positions))
}

/// Drops the aliases (see `alias_imports`) nothing reads as a value, as `tsc` does: they may
/// name a type, which has no runtime value to copy. An alias read only by dropped aliases is
/// dropped too; aliases that read each other in a cycle stay.
pub(super) fn drop_type_aliases(stmts: &mut Vec<Stmt>, aliases: &[BytePos]) {
  if aliases.is_empty() {
    return;
  }
  let aliases: HashSet<BytePos> = aliases.iter().copied().collect();
  let alias_id = |stmt: &Stmt| match stmt {
    Stmt::Decl(Decl::Var(var)) if aliases.contains(&var.span.lo) => match var.decls.as_slice() {
      [decl] => decl.name.as_ident().map(|name| name.id.to_id()),
      _ => None,
    },
    _ => None,
  };
  // Counted once, not rescanned per dropped alias: a cell can hold tens of thousands of
  // aliases, each read only by the next.
  let mut outside = ValueReads::default();
  let mut inside: Vec<(usize, Id, HashSet<Id>)> = Vec::new();
  for (i, stmt) in stmts.iter().enumerate() {
    match alias_id(stmt) {
      Some(id) => {
        let mut reads = ValueReads::default();
        stmt.visit_with(&mut reads);
        inside.push((i, id, reads.0));
      }
      None => stmt.visit_with(&mut outside),
    }
  }
  // Per alias name: the statements that declare it, and how many statements read it.
  let mut names: HashMap<Id, (Vec<usize>, usize)> = HashMap::new();
  for (k, (_, id, _)) in inside.iter().enumerate() {
    names.entry(id.clone()).or_default().0.push(k);
  }
  for reads in inside.iter().map(|(_, _, reads)| reads).chain([&outside.0]) {
    for id in reads {
      if let Some((_, readers)) = names.get_mut(id) {
        *readers += 1;
      }
    }
  }
  let mut unread: Vec<Id> = names
    .iter()
    .filter(|(_, (_, readers))| *readers == 0)
    .map(|(id, _)| id.clone())
    .collect();
  let mut dropped = HashSet::new();
  while let Some(id) = unread.pop() {
    for &k in &names[&id].0.clone() {
      let (i, _, reads) = &inside[k];
      dropped.insert(*i);
      for read in reads {
        if let Some((_, readers)) = names.get_mut(read) {
          *readers -= 1;
          if *readers == 0 {
            unread.push(read.clone());
          }
        }
      }
    }
  }
  let mut i = 0;
  stmts.retain(|_| {
    i += 1;
    !dropped.contains(&(i - 1))
  });
}

/// Identifiers read as values (types skipped).
#[derive(Default)]
struct ValueReads(HashSet<Id>);

impl Visit for ValueReads {
  fn visit_ts_type(&mut self, _: &TsType) {}

  fn visit_expr(&mut self, expr: &Expr) {
    if let Expr::Ident(ident) = expr {
      self.0.insert(ident.to_id());
    }
    expr.visit_children_with(self);
  }

  fn visit_prop(&mut self, prop: &Prop) {
    if let Prop::Shorthand(ident) = prop {
      self.0.insert(ident.to_id());
    }
    prop.visit_children_with(self);
  }
}
