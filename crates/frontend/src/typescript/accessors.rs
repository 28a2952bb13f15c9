//! `accessor` fields, which QuickJS cannot run, lowered as `tsc` lowers them for ES2022.

use std::collections::HashSet;
use swc_core::common::{Mark, Span, SyntaxContext};
use swc_core::ecma::ast::{
  AssignExpr, AssignOp, AssignTarget, AutoAccessor, Class, ClassDecl, ClassExpr, ClassMember,
  ClassMethod, Expr, ExprStmt, Function, FunctionBody, Ident, Key, MemberExpr, MemberProp,
  MethodKind, Param, Pat, PrivateMethod, PrivateName, PrivateProp, PropName, ReturnStmt,
  SimpleAssignTarget, Stmt, ThisExpr,
};
use swc_core::ecma::atoms::Atom;
use swc_core::ecma::visit::{VisitMut, VisitMutWith};

/// Lowers `accessor x = v` (after the TypeScript pass erased its types) as `tsc` does for
/// ES2022: a private storage field with a getter and a setter. QuickJS has no auto-accessors.
pub(super) struct LowerAccessors;

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
