//! TypeScript cells: swc's parser and TypeScript transform, with positions mapped back.
//!
//! One parse serves everything: the module-access check, the completion value (the last
//! expression statement becomes a `return` in the AST) and the transform (types erased; enums,
//! namespaces and parameter properties lowered). The emitter records, for each token it writes,
//! the source position it came from; that list is the map from the executed code back to the
//! user's lines. No type checking, no module resolution.
//!
//! Where swc's transform and `tsc` disagree on a script, small passes here close the gap (all
//! checked against `tsc` by `__test__/typescript.spec.ts`): namespace declarations that merge,
//! `import A = NS.B` aliases, and `accessor` fields, which QuickJS cannot run.

use crate::error::Failure;
use crate::sandbox::source::{
  Language, PREFIX, PositionMap, Program, START, cell_body, check_module_access, completion_index,
  parse_wrapped, ts_syntax, user_pos, wrap,
};
use std::collections::HashSet;
use swc_core::common::{
  BytePos, DUMMY_SP, GLOBALS, Globals, Mark, SourceMap, Span, SyntaxContext, source_map::SmallPos,
  sync::Lrc,
};
use swc_core::ecma::ast::{
  AssignExpr, AssignOp, AssignPat, AssignTarget, AutoAccessor, CallExpr, Callee, Class, ClassDecl,
  ClassExpr, ClassMember, ClassMethod, Decl, Decorator, EsVersion, Expr, ExprStmt, Function,
  FunctionBody, Id, Ident, IdentName, Key, KeyValuePatProp, KeyValueProp, MemberExpr, MemberProp,
  MethodKind, ModuleDecl, ModuleItem, ObjectPatProp, Param, ParenExpr, Pat, PrivateMethod,
  PrivateName, PrivateProp, Program as Ast, Prop, PropName, ReturnStmt, Script, SimpleAssignTarget,
  Stmt, ThisExpr, TsEnumDecl, TsEnumMemberId, TsModuleName, TsModuleRef, TsNamespaceBody,
  TsParamPropParam, TsType,
};
use swc_core::ecma::atoms::Atom;
use swc_core::ecma::codegen::{Config, Emitter, text_writer::JsWriter};
use swc_core::ecma::parser::{Parser, StringInput, Syntax, lexer::Lexer};
use swc_core::ecma::transforms::base::{
  fixer::fixer,
  helpers::{HELPERS, Helpers, inject_helpers},
  hygiene::hygiene,
  resolver,
};
use swc_core::ecma::transforms::typescript::{Config as TsConfig, typescript};
use swc_core::ecma::visit::{Visit, VisitMut, VisitMutWith, VisitWith};

fn failure(message: String) -> Failure {
  Failure::invalid(format!("typescript transform failed: {message}"))
}

/// Transforms a TypeScript cell into the wrapped JavaScript the VM runs.
pub fn prepare_typescript(user: &str) -> Result<Program, Failure> {
  // Aliases are rewritten in place, byte for byte, so every offset (and so every line and
  // column reported below) is the same in `user` and in the original text.
  let original = user;
  let aliased = alias_imports(user);
  let user = aliased.as_ref().map_or(user, |(text, _)| text.as_str());
  let aliases = aliased.as_ref().map_or(&[][..], |(_, at)| at.as_slice());

  let wrapped = wrap(user);
  let mut script = parse_wrapped(user, &wrapped, Language::TypeScript, failure)?;
  cell_body(user, &wrapped, &script)?;
  check_module_access(user, &Ast::Script(script.clone()))?;
  check_supported(user, &script)?;

  // Completion value: `expr;` → `return (expr);` in place, so its span (and map) stays.
  if let Some(body) = cell_stmts(&mut script)
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

  let cm: Lrc<SourceMap> = Default::default();
  let (code, pairs) = GLOBALS.set(&Globals::new(), || {
    let unresolved = Mark::new();
    let top_level = Mark::new();
    HELPERS.set(&Helpers::new(false), || {
      script.visit_mut_with(&mut resolver(unresolved, top_level, true));
      script.visit_mut_with(&mut MergeNamespaces);
      if let Some(body) = cell_stmts(&mut script) {
        drop_type_aliases(body, aliases);
      }
      let mut program = Ast::Script(script);
      // Enums stay objects that are read at run time, as `tsc` emits them (swc would inline
      // `E.A`, which a script that patches its enum can tell apart); const enums still fold.
      let config = TsConfig {
        native_class_properties: true,
        ts_enum_is_mutable: true,
        ..Default::default()
      };
      program.mutate(&mut typescript(config, unresolved, top_level));
      program.visit_mut_with(&mut LowerAccessors);
      program.visit_mut_with(&mut NamespaceParams);
      program.mutate(&mut inject_helpers(unresolved));
      program.mutate(&mut hygiene());
      program.mutate(&mut fixer(None));
      emit(&cm, &program, wrapped.len())
    })
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
    positions: PositionMap::generated(original, pairs),
  })
}

type Emitted = (String, Vec<(BytePos, swc_core::common::LineCol)>);

/// JavaScript text of the program and, per emitted token, its source position.
fn emit(cm: &Lrc<SourceMap>, program: &Ast, size: usize) -> Result<Emitted, Failure> {
  let mut buf = Vec::with_capacity(size);
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
      .emit_program(program)
      .map_err(|e| failure(format!("could not emit JavaScript: {e}")))?;
  }
  let code = String::from_utf8(buf).map_err(|_| failure("emitted code was not UTF-8".into()))?;
  Ok((code, pairs))
}

/// The statements of the cell function in a script `cell_body` accepted.
fn cell_stmts(script: &mut Script) -> Option<&mut Vec<Stmt>> {
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

fn at(user: &str, pos: BytePos) -> String {
  let (line, column) = user_pos(user, pos);
  format!("line {line}, column {column}")
}

/// Rejects what parses but cannot run: decorators (no transform for them here) and
/// `accessor` fields with computed names.
fn check_supported(user: &str, script: &Script) -> Result<(), Failure> {
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
    Some((what, pos)) => Err(failure(format!("{what} ({})", at(user, pos)))),
    None => Ok(()),
  }
}

// ---------------------------------------------------------------------------------------------
// `import A = NS.B`

/// Rewrites each top-level `import A = NS.B` (an alias, not module access) to `var    A = NS.B`
/// of the same length: swc only parses the alias where module items may stand, and the cell
/// is a function body. Returns the text and the wrapped positions of the rewritten statements.
fn alias_imports(user: &str) -> Option<(String, Vec<BytePos>)> {
  if !user.contains("import") {
    return None;
  }
  let base = START + PREFIX.len() as u32;
  let input = StringInput::new(user, BytePos(base), BytePos(base + user.len() as u32));
  let syntax = Syntax::Typescript(ts_syntax());
  let mut parser = Parser::new_from(Lexer::new(syntax, Default::default(), input, None));
  let module = parser.parse_module().ok()?;
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
/// name a type, which has no runtime value to copy.
fn drop_type_aliases(stmts: &mut Vec<Stmt>, aliases: &[BytePos]) {
  if aliases.is_empty() {
    return;
  }
  let alias_id = |stmt: &Stmt| match stmt {
    Stmt::Decl(Decl::Var(var)) if aliases.contains(&var.span.lo) => match var.decls.as_slice() {
      [decl] => decl.name.as_ident().map(|name| name.id.to_id()),
      _ => None,
    },
    _ => None,
  };
  // An alias read only by another dropped alias is unused too: repeat until nothing changes.
  loop {
    let mut reads = ValueReads::default();
    stmts.visit_with(&mut reads);
    let before = stmts.len();
    stmts.retain(|stmt| alias_id(stmt).is_none_or(|id| reads.0.contains(&id)));
    if stmts.len() == before {
      return;
    }
  }
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

// ---------------------------------------------------------------------------------------------
// Merged namespaces

/// Qualifies names that one declaration of a namespace uses from another declaration of the
/// same namespace: in `namespace N { export const a = 1 } namespace N { export const b = a }`
/// the second `a` is `N.a` to `tsc`, while swc only sees exports of the block it is in and
/// would leave an unbound `a`. Runs after the resolver, which tells local bindings apart.
struct MergeNamespaces;

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
  let mut groups: Vec<(Id, Vec<Space<'a>>)> = Vec::new();
  for decl in decls {
    let (TsModuleName::Ident(name), Some(body), false, false) =
      (&decl.id, decl.body.as_mut(), decl.declare, decl.global)
    else {
      continue;
    };
    let id = name.to_id();
    let space = (name.clone(), body);
    match groups.iter_mut().find(|(group, _)| *group == id) {
      Some((_, spaces)) => spaces.push(space),
      None => groups.push((id, vec![space])),
    }
  }
  for (_, mut spaces) in groups {
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
    let mut children: Vec<(Atom, Vec<Space<'_>>)> = Vec::new();
    for (_, body) in spaces.iter_mut() {
      for (name, body) in exported_namespaces(body) {
        match children.iter_mut().find(|(sym, _)| *sym == name.sym) {
          Some((_, group)) => group.push((name, body)),
          None => children.push((name.sym.clone(), vec![(name, body)])),
        }
      }
    }
    for (_, mut group) in children {
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
struct NamespaceParams;

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

// ---------------------------------------------------------------------------------------------
// `accessor` fields

/// Lowers `accessor x = v` (after the TypeScript pass erased its types) as `tsc` does for
/// ES2022: a private storage field with a getter and a setter. QuickJS has no auto-accessors.
struct LowerAccessors;

impl VisitMut for LowerAccessors {
  fn visit_mut_class_decl(&mut self, decl: &mut ClassDecl) {
    decl.class.visit_mut_children_with(self);
    lower_accessors(&mut decl.class, Some(&decl.ident));
  }

  fn visit_mut_class_expr(&mut self, expr: &mut ClassExpr) {
    expr.class.visit_mut_children_with(self);
    lower_accessors(&mut expr.class, expr.ident.as_ref());
  }
}

fn lower_accessors(class: &mut Class, name: Option<&Ident>) {
  if !class
    .body
    .iter()
    .any(|m| matches!(m, ClassMember::AutoAccessor(_)))
  {
    return;
  }
  let mut taken: HashSet<String> = class
    .body
    .iter()
    .filter_map(|member| match member {
      ClassMember::PrivateProp(p) => Some(p.key.name.to_string()),
      ClassMember::PrivateMethod(m) => Some(m.key.name.to_string()),
      ClassMember::AutoAccessor(AutoAccessor {
        key: Key::Private(p),
        ..
      }) => Some(p.name.to_string()),
      _ => None,
    })
    .collect();
  let members = std::mem::take(&mut class.body);
  for member in members {
    let ClassMember::AutoAccessor(accessor) = member else {
      class.body.push(member);
      continue;
    };
    let AutoAccessor {
      span,
      key,
      value,
      is_static,
      ..
    } = accessor;
    let base = match &key {
      Key::Private(private) => private.name.to_string(),
      Key::Public(PropName::Ident(ident)) => ident.sym.to_string(),
      Key::Public(PropName::Str(s)) => s.value.to_string_lossy().into_owned(),
      Key::Public(PropName::Num(n)) => n.value.to_string(),
      Key::Public(PropName::BigInt(b)) => b.value.to_string(),
      // Rejected by `check_supported`.
      Key::Public(_) => "computed".to_string(),
    };
    let storage = storage_name(&base, &mut taken);
    let storage = PrivateName {
      span,
      name: storage,
    };
    // Static storage is read through the class, so subclasses inherit the accessor (`tsc`).
    let target = || match (is_static, name) {
      (true, Some(name)) => Expr::Ident(name.clone()),
      _ => Expr::This(ThisExpr { span }),
    };
    let field = || MemberExpr {
      span,
      obj: Box::new(target()),
      prop: MemberProp::PrivateName(storage.clone()),
    };
    let getter = function(
      span,
      vec![],
      Stmt::Return(ReturnStmt {
        span,
        arg: Some(Box::new(Expr::Member(field()))),
      }),
    );
    let value_param = Ident::new(
      "value".into(),
      span,
      SyntaxContext::empty().apply_mark(Mark::new()),
    );
    let setter = function(
      span,
      vec![Param::from(Pat::Ident(value_param.clone().into()))],
      Stmt::Expr(ExprStmt {
        span,
        expr: Box::new(Expr::Assign(AssignExpr {
          span,
          op: AssignOp::Assign,
          left: AssignTarget::Simple(SimpleAssignTarget::Member(field())),
          right: Box::new(Expr::Ident(value_param)),
        })),
      }),
    );
    class.body.push(ClassMember::PrivateProp(PrivateProp {
      span,
      key: storage.clone(),
      value,
      is_static,
      ..Default::default()
    }));
    for (kind, function) in [(MethodKind::Getter, getter), (MethodKind::Setter, setter)] {
      class.body.push(match &key {
        Key::Private(private) => ClassMember::PrivateMethod(PrivateMethod {
          span,
          key: private.clone(),
          function: Box::new(function),
          kind,
          is_static,
          ..Default::default()
        }),
        Key::Public(prop) => ClassMember::Method(ClassMethod {
          span,
          key: prop.clone(),
          function: Box::new(function),
          kind,
          is_static,
          ..Default::default()
        }),
      });
    }
  }
}

/// `#<name>_accessor_storage` as `tsc` names it, made unique within the class.
fn storage_name(base: &str, taken: &mut HashSet<String>) -> Atom {
  let mut clean: String = base
    .chars()
    .map(|c| {
      if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
        c
      } else {
        '_'
      }
    })
    .collect();
  if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
    clean.insert(0, '_');
  }
  let mut name = format!("{clean}_accessor_storage");
  let mut n = 1;
  while taken.contains(&name) {
    n += 1;
    name = format!("{clean}_accessor_storage{n}");
  }
  taken.insert(name.clone());
  Atom::from(name)
}

fn function(span: Span, params: Vec<Param>, stmt: Stmt) -> Function {
  Function {
    params,
    span,
    body: Some(FunctionBody {
      span,
      stmts: vec![stmt],
    }),
    ..Default::default()
  }
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

  /// Runs a prepared cell in a bare QuickJS context; the JSON of its value, or the error.
  fn run(code: &str) -> String {
    let program = ts(code);
    let rt = rquickjs::Runtime::new().unwrap();
    let ctx = rquickjs::Context::full(&rt).unwrap();
    ctx.with(|ctx| {
      let main: rquickjs::Function = ctx
        .eval(program.code.as_str())
        .unwrap_or_else(|e| panic!("{}: {e}", program.code));
      ctx.globals().set("main", main).unwrap();
      let _: rquickjs::Value = ctx
        .eval(
          "main().then((v) => { globalThis.out = JSON.stringify(v) ?? 'null' }, \
           (e) => { globalThis.out = 'error: ' + e })",
        )
        .unwrap();
      while ctx.execute_pending_job() {}
      ctx.globals().get::<_, String>("out").unwrap()
    })
  }

  #[test]
  fn merged_namespaces_share_their_exports() {
    assert_eq!(
      run(
        "namespace N { export const a = 1 }\nnamespace N { export const b = a + 1 }\nreturn [N.a, N.b]"
      ),
      "[1,2]"
    );
    // Writes, destructuring assignments and shorthand properties go to the namespace too.
    assert_eq!(
      run(
        "namespace C { export let n = 0, m = 5 }\n\
         namespace C { export function bump() { n++; n += 1; [n, m] = [m, n]; ({ m } = { m: 9 }); return { n, m } } }\n\
         return [C.bump(), C.n, C.m]"
      ),
      r#"[{"n":5,"m":9},5,9]"#
    );
    // Locals, parameters and non-exported members are not the namespace's.
    assert_eq!(
      run(
        "const a = 'outer';\nnamespace N { export const a = 'exported'; const hidden = 1 }\n\
         namespace N { export const f = (a: string) => a; export const g = () => [a, typeof hidden] }\n\
         return [a, N.f('param'), N.g()]"
      ),
      r#"["outer","param",["exported","undefined"]]"#
    );
    // Inside an enum, its own members come first.
    assert_eq!(
      run(
        "namespace N { export const A = 100 }\n\
         namespace N { export enum E { A = 1, B = A + 1 } export const c = A }\n\
         return [N.E.B, N.c]"
      ),
      "[2,100]"
    );
    // Nested and dotted declarations merge level by level.
    assert_eq!(
      run(
        "namespace A { export const k = 'A'; export namespace B { export const y = 1 } }\n\
         namespace A.B { export const z = y + 1; export const w = k }\n\
         return [A.B.z, A.B.w]"
      ),
      r#"[2,"A"]"#
    );
    // The innermost namespace exporting a name wins, even one declared later (as in tsc).
    assert_eq!(
      run(
        "namespace A { export const x = 'A' }\n\
         namespace A { export namespace B { export const early = x } }\n\
         namespace A { export namespace B { export const x = 'B' } export const late = x }\n\
         return [A.B.early ?? 'unset', A.late]"
      ),
      r#"["unset","A"]"#
    );
  }

  #[test]
  fn enum_members_are_read_at_run_time() {
    assert_eq!(
      run(
        "enum E { A = 1, B = A * 2 }\nObject.assign(E, { A: 5 });\nconst enum C { X = 3 }\n[E.A, E.B, E[1], C.X]"
      ),
      r#"[5,2,"A",3]"#
    );
  }

  #[test]
  fn namespace_members_keep_the_namespace_name() {
    assert_eq!(
      run(
        "namespace Model { export class Model {} export const made = new Model() }\n\
         namespace Util { export function Util() { return Util.name } }\n\
         [Model.Model.name, Model.made.constructor.name, Util.Util()]"
      ),
      r#"["Model","Model","Util"]"#
    );
  }

  #[test]
  fn import_aliases_are_declarations() {
    assert_eq!(
      run(
        "namespace NS { export namespace In { export const v = 7 } }\nimport I = NS.In;\nI.v * 2"
      ),
      "14"
    );
    // An alias read only as a type is dropped: its target may have no runtime value.
    assert_eq!(
      run(
        "namespace T { export interface U { n: number } }\nimport U = T.U;\nimport V = U;\n\
         const u: V = { n: 1 };\nu"
      ),
      r#"{"n":1}"#
    );
    assert!(ts("import A = B.C;\nA.d").code.contains("var A = B.C"));
    for code in [
      "import fs = require('fs')",
      "export import X = N.Y",
      "import type X = N.Y",
    ] {
      let err = prepare_typescript(code).unwrap_err();
      assert!(
        err.message.starts_with("module access is not allowed"),
        "{code}: {}",
        err.message
      );
    }
  }

  #[test]
  fn auto_accessors_are_lowered() {
    assert_eq!(
      run(
        "class A { accessor x = 1; static accessor n: number = 0; accessor #p = 2; accessor 'k-1' = 3;\n\
         constructor() { A.n++ } p() { return this.#p } }\n\
         class B extends A {}\nconst a = new A(); a.x = 5; new B();\n\
         [a.x, A.n, B.n, a.p(), (a as any)['k-1'], Object.keys(a)]"
      ),
      r#"[5,2,2,2,3,[]]"#
    );
    assert_eq!(
      run(
        "abstract class W { abstract accessor w: number }\nclass X extends W { accessor w = 4 }\nnew X().w"
      ),
      "4"
    );
  }

  #[test]
  fn unsupported_syntax_is_named() {
    let err = prepare_typescript("const x = 1;\n@sealed class A {}").unwrap_err();
    assert_eq!(
      err.message,
      "typescript transform failed: decorators are not supported (line 2, column 1)"
    );
    let err = prepare_typescript("class A {\n  accessor [k] = 1\n}").unwrap_err();
    assert_eq!(
      err.message,
      "typescript transform failed: `accessor` fields with computed names are not supported \
       (line 2, column 3)"
    );
  }
}
