//! Namespaces as `tsc` lowers them where swc's transform differs: declarations of one
//! namespace that merge, and a namespace with a member of its own name.

use std::collections::{HashMap, HashSet};
use swc_core::ecma::ast::{
  AssignPat, CallExpr, Callee, ClassDecl, ClassExpr, Decl, Expr, Id, Ident, IdentName,
  KeyValuePatProp, KeyValueProp, MemberExpr, MemberProp, ModuleDecl, ModuleItem, ObjectPatProp,
  Param, Pat, Prop, PropName, SimpleAssignTarget, Stmt, TsEnumDecl, TsEnumMemberId, TsModuleName,
  TsNamespaceBody, TsParamPropParam, TsType,
};
use swc_core::ecma::atoms::Atom;
use swc_core::ecma::visit::{Visit, VisitMut, VisitMutWith, VisitWith};

/// Qualifies names that one declaration of a namespace uses from another declaration of the
/// same namespace: in `namespace N { export const a = 1 } namespace N { export const b = a }`
/// the second `a` is `N.a` to `tsc`, while swc only sees exports of the block it is in and
/// would leave an unbound `a`. Runs after the resolver, which tells local bindings apart.
pub(super) struct MergeNamespaces;

impl VisitMut for MergeNamespaces {
  fn visit_mut_stmts(&mut self, stmts: &mut Vec<Stmt>) {
    stmts.visit_mut_children_with(self);
    let decls = stmts.iter_mut().filter_map(|stmt| match stmt {
      Stmt::Decl(Decl::TsModule(module)) => Some(&mut **module),
      _ => None,
    });
    merge_groups(decls);
  }

  fn visit_mut_module_items(&mut self, items: &mut Vec<ModuleItem>) {
    items.visit_mut_children_with(self);
    // Exported namespaces belong to the enclosing namespace and merge with it (see `merge`).
    let decls = items.iter_mut().filter_map(|item| match item {
      ModuleItem::Stmt(Stmt::Decl(Decl::TsModule(module))) => Some(&mut **module),
      _ => None,
    });
    merge_groups(decls);
  }
}

/// One declaration of a namespace: the name its body calls it by, and the body.
type Space<'a> = (Ident, &'a mut TsNamespaceBody);

fn merge_groups<'a>(decls: impl Iterator<Item = &'a mut swc_core::ecma::ast::TsModuleDecl>) {
  // In order of first declaration; found by name through `at` (a cell may declare thousands).
  let mut groups: Vec<Vec<Space<'a>>> = Vec::new();
  let mut at: HashMap<Id, usize> = HashMap::new();
  for decl in decls {
    let (TsModuleName::Ident(name), Some(body), false, false) =
      (&decl.id, decl.body.as_mut(), decl.declare, decl.global)
    else {
      continue;
    };
    let space = (name.clone(), body);
    let group = *at.entry(name.to_id()).or_insert_with(|| {
      groups.push(Vec::new());
      groups.len() - 1
    });
    groups[group].push(space);
  }
  for mut spaces in groups {
    merge(&mut spaces);
  }
}

/// Qualifies cross-declaration references in every declaration of one namespace, innermost
/// namespaces first, so a name resolves to the nearest namespace that exports it.
fn merge(spaces: &mut [Space<'_>]) {
  let mut exported = HashSet::new();
  for (_, body) in spaces.iter() {
    exports(body, &mut exported);
  }
  {
    let mut children: Vec<Vec<Space<'_>>> = Vec::new();
    let mut at: HashMap<Atom, usize> = HashMap::new();
    for (_, body) in spaces.iter_mut() {
      for (name, body) in exported_namespaces(body) {
        let group = *at.entry(name.sym.clone()).or_insert_with(|| {
          children.push(Vec::new());
          children.len() - 1
        });
        children[group].push((name, body));
      }
    }
    for mut group in children {
      merge(&mut group);
    }
  }
  if spaces.len() < 2 {
    // A lone declaration's exports are all its own bindings, which swc qualifies.
    return;
  }
  for (name, body) in spaces.iter_mut() {
    let mut declared = Declared::default();
    body.visit_with(&mut declared);
    body.visit_mut_with(&mut Qualify {
      space: name,
      exported: &exported,
      declared: &declared.0,
      members: Vec::new(),
    });
  }
}

/// Names of the values a namespace body exports.
fn exports(body: &TsNamespaceBody, names: &mut HashSet<Atom>) {
  let block = match body {
    TsNamespaceBody::TsNamespaceDecl(inner) => {
      names.insert(inner.id.sym.clone());
      return;
    }
    TsNamespaceBody::TsModuleBlock(block) => block,
  };
  for item in &block.body {
    match item {
      ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(export)) => match &export.decl {
        Decl::Var(var) => {
          for decl in &var.decls {
            let mut bound = Vec::new();
            pat_names(&decl.name, &mut bound);
            names.extend(bound.into_iter().map(|ident| ident.sym.clone()));
          }
        }
        Decl::Fn(f) => {
          names.insert(f.ident.sym.clone());
        }
        Decl::Class(c) => {
          names.insert(c.ident.sym.clone());
        }
        Decl::TsEnum(e) => {
          names.insert(e.id.sym.clone());
        }
        Decl::TsModule(m) => {
          if let TsModuleName::Ident(id) = &m.id {
            names.insert(id.sym.clone());
          }
        }
        _ => {}
      },
      ModuleItem::ModuleDecl(ModuleDecl::TsImportEquals(decl)) if decl.is_export => {
        names.insert(decl.id.sym.clone());
      }
      _ => {}
    }
  }
}

/// The namespaces a namespace body exports (`export namespace X`, or `B` of `namespace A.B`).
fn exported_namespaces(body: &mut TsNamespaceBody) -> Vec<Space<'_>> {
  match body {
    TsNamespaceBody::TsNamespaceDecl(inner) => vec![(inner.id.clone(), &mut *inner.body)],
    TsNamespaceBody::TsModuleBlock(block) => block
      .body
      .iter_mut()
      .filter_map(|item| match item {
        ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(export)) => match &mut export.decl {
          Decl::TsModule(module) if !module.declare => match (&module.id, module.body.as_mut()) {
            (TsModuleName::Ident(name), Some(body)) => Some((name.clone(), body)),
            _ => None,
          },
          _ => None,
        },
        _ => None,
      })
      .collect(),
  }
}

/// Identifiers bound by a pattern.
fn pat_names<'a>(pat: &'a Pat, out: &mut Vec<&'a Ident>) {
  match pat {
    Pat::Ident(binding) => out.push(&binding.id),
    Pat::Array(array) => array.elems.iter().flatten().for_each(|p| pat_names(p, out)),
    Pat::Object(object) => {
      for prop in &object.props {
        match prop {
          ObjectPatProp::KeyValue(kv) => pat_names(&kv.value, out),
          ObjectPatProp::Assign(assign) => out.push(&assign.key.id),
          ObjectPatProp::Rest(rest) => pat_names(&rest.arg, out),
        }
      }
    }
    Pat::Assign(assign) => pat_names(&assign.left, out),
    Pat::Rest(rest) => pat_names(&rest.arg, out),
    _ => {}
  }
}

/// Every binding declared inside a subtree (after the resolver, bindings are unique ids).
#[derive(Default)]
struct Declared(HashSet<Id>);

impl Declared {
  fn pat(&mut self, pat: &Pat) {
    let mut bound = Vec::new();
    pat_names(pat, &mut bound);
    self.0.extend(bound.into_iter().map(Ident::to_id));
  }
}

impl Visit for Declared {
  fn visit_ts_type(&mut self, _: &TsType) {}

  fn visit_var_declarator(&mut self, decl: &swc_core::ecma::ast::VarDeclarator) {
    self.pat(&decl.name);
    decl.visit_children_with(self);
  }

  fn visit_param(&mut self, param: &Param) {
    self.pat(&param.pat);
    param.visit_children_with(self);
  }

  fn visit_ts_param_prop_param(&mut self, param: &TsParamPropParam) {
    match param {
      TsParamPropParam::Ident(binding) => {
        self.0.insert(binding.id.to_id());
      }
      TsParamPropParam::Assign(assign) => self.pat(&assign.left),
    }
    param.visit_children_with(self);
  }

  fn visit_arrow_expr(&mut self, arrow: &swc_core::ecma::ast::ArrowExpr) {
    arrow.params.iter().for_each(|p| self.pat(p));
    arrow.visit_children_with(self);
  }

  fn visit_catch_clause(&mut self, clause: &swc_core::ecma::ast::CatchClause) {
    if let Some(param) = &clause.param {
      self.pat(param);
    }
    clause.visit_children_with(self);
  }

  fn visit_fn_decl(&mut self, f: &swc_core::ecma::ast::FnDecl) {
    self.0.insert(f.ident.to_id());
    f.visit_children_with(self);
  }

  fn visit_fn_expr(&mut self, f: &swc_core::ecma::ast::FnExpr) {
    if let Some(ident) = &f.ident {
      self.0.insert(ident.to_id());
    }
    f.visit_children_with(self);
  }

  fn visit_class_decl(&mut self, c: &ClassDecl) {
    self.0.insert(c.ident.to_id());
    c.visit_children_with(self);
  }

  fn visit_class_expr(&mut self, c: &ClassExpr) {
    if let Some(ident) = &c.ident {
      self.0.insert(ident.to_id());
    }
    c.visit_children_with(self);
  }

  fn visit_ts_enum_decl(&mut self, e: &TsEnumDecl) {
    self.0.insert(e.id.to_id());
    e.visit_children_with(self);
  }

  fn visit_ts_module_decl(&mut self, m: &swc_core::ecma::ast::TsModuleDecl) {
    if let TsModuleName::Ident(id) = &m.id {
      self.0.insert(id.to_id());
    }
    m.visit_children_with(self);
  }

  fn visit_ts_namespace_decl(&mut self, n: &swc_core::ecma::ast::TsNamespaceDecl) {
    self.0.insert(n.id.to_id());
    n.visit_children_with(self);
  }

  fn visit_ts_import_equals_decl(&mut self, decl: &swc_core::ecma::ast::TsImportEqualsDecl) {
    self.0.insert(decl.id.to_id());
  }
}

/// Rewrites reads and writes of `exported` names not bound inside one namespace declaration
/// to members of that declaration's namespace object.
struct Qualify<'a> {
  space: &'a Ident,
  exported: &'a HashSet<Atom>,
  declared: &'a HashSet<Id>,
  /// Members of the enclosing enums: inside an enum they name its members, not exports.
  members: Vec<Atom>,
}

impl Qualify<'_> {
  fn hit(&self, ident: &Ident) -> bool {
    self.exported.contains(&ident.sym)
      && !self.declared.contains(&ident.to_id())
      && !self.members.contains(&ident.sym)
  }

  /// `Space.name`, placed where the name was so errors still point at it.
  fn member(&self, ident: &Ident) -> MemberExpr {
    let mut space = self.space.clone();
    space.span = ident.span;
    MemberExpr {
      span: ident.span,
      obj: Box::new(Expr::Ident(space)),
      prop: MemberProp::Ident(IdentName::new(ident.sym.clone(), ident.span)),
    }
  }
}

impl VisitMut for Qualify<'_> {
  fn visit_mut_ts_type(&mut self, _: &mut TsType) {}

  fn visit_mut_ts_enum_decl(&mut self, decl: &mut TsEnumDecl) {
    let outer = self.members.len();
    self
      .members
      .extend(decl.members.iter().map(|m| match &m.id {
        TsEnumMemberId::Ident(ident) => ident.sym.clone(),
        TsEnumMemberId::Str(s) => Atom::from(s.value.to_string_lossy().into_owned()),
      }));
    decl.visit_mut_children_with(self);
    self.members.truncate(outer);
  }

  fn visit_mut_expr(&mut self, expr: &mut Expr) {
    match expr {
      Expr::Ident(ident) if self.hit(ident) => *expr = Expr::Member(self.member(ident)),
      _ => expr.visit_mut_children_with(self),
    }
  }

  fn visit_mut_prop(&mut self, prop: &mut Prop) {
    match prop {
      Prop::Shorthand(ident) if self.hit(ident) => {
        *prop = Prop::KeyValue(KeyValueProp {
          key: PropName::Ident(IdentName::new(ident.sym.clone(), ident.span)),
          value: Box::new(Expr::Member(self.member(ident))),
        })
      }
      _ => prop.visit_mut_children_with(self),
    }
  }

  fn visit_mut_simple_assign_target(&mut self, target: &mut SimpleAssignTarget) {
    match target {
      SimpleAssignTarget::Ident(binding) if self.hit(&binding.id) => {
        *target = SimpleAssignTarget::Member(self.member(&binding.id))
      }
      _ => target.visit_mut_children_with(self),
    }
  }

  // Binding patterns hold only declared names, so a hit here is a destructuring assignment.
  fn visit_mut_pat(&mut self, pat: &mut Pat) {
    match pat {
      Pat::Ident(binding) if self.hit(&binding.id) => {
        *pat = Pat::Expr(Box::new(Expr::Member(self.member(&binding.id))))
      }
      _ => pat.visit_mut_children_with(self),
    }
  }

  fn visit_mut_object_pat_prop(&mut self, prop: &mut ObjectPatProp) {
    match prop {
      ObjectPatProp::Assign(assign) if self.hit(&assign.key.id) => {
        let ident = assign.key.id.clone();
        let target = Pat::Expr(Box::new(Expr::Member(self.member(&ident))));
        let mut value = match assign.value.take() {
          Some(default) => Pat::Assign(AssignPat {
            span: assign.span,
            left: Box::new(target),
            right: default,
          }),
          None => target,
        };
        value.visit_mut_children_with(self);
        *prop = ObjectPatProp::KeyValue(KeyValuePatProp {
          key: PropName::Ident(IdentName::new(ident.sym.clone(), ident.span)),
          value: Box::new(value),
        });
      }
      _ => prop.visit_mut_children_with(self),
    }
  }
}

/// Renames the parameter of a namespace's function when the namespace declares a member of
/// its own name (`namespace Model { export class Model {} }`), as `tsc` does (`Model_1`).
/// Otherwise hygiene renames the member instead, and `Model.Model.name` becomes `"Model1"`.
pub(super) struct NamespaceParams;

impl VisitMut for NamespaceParams {
  fn visit_mut_call_expr(&mut self, call: &mut CallExpr) {
    call.visit_mut_children_with(self);
    // The shape swc gives a namespace: `(function (N) { … })(N || (N = {}))`.
    if call.args.len() != 1 {
      return;
    }
    let Callee::Expr(callee) = &mut call.callee else {
      return;
    };
    let callee = match &mut **callee {
      Expr::Paren(paren) => &mut *paren.expr,
      callee => callee,
    };
    let Expr::Fn(function) = callee else {
      return;
    };
    let function = &mut function.function;
    let [
      Param {
        pat: Pat::Ident(param),
        ..
      },
    ] = function.params.as_mut_slice()
    else {
      return;
    };
    let mut declared = Declared::default();
    function.body.visit_with(&mut declared);
    let own = param.id.to_id();
    if !declared
      .0
      .iter()
      .any(|(sym, ctxt)| *sym == own.0 && *ctxt != own.1)
    {
      return;
    }
    let renamed = Atom::from(format!("{}_1", own.0));
    param.id.sym = renamed.clone();
    function.body.visit_mut_with(&mut Rename {
      from: own,
      to: renamed,
    });
  }
}

/// Renames one binding (all identifiers with its id).
struct Rename {
  from: Id,
  to: Atom,
}

impl VisitMut for Rename {
  fn visit_mut_ident(&mut self, ident: &mut Ident) {
    if ident.sym == self.from.0 && ident.ctxt == self.from.1 {
      ident.sym = self.to.clone();
    }
  }
}
