//! Bounds how deep a parsed cell nests before anything walks it.
//!
//! swc parses operator and member chains (`a + a + …`, `a.b.b…`, `f()()…`) in loops, so a long
//! chain becomes an AST as deep as it is long, and cloning, visiting, transforming, emitting or
//! dropping it recurses once per level. Every cycle in the AST's types passes through an
//! expression, statement, pattern, type, qualified type name or namespace body; the cutter
//! counts those levels and cuts subtrees out below `MAX_DEPTH`, so the rejected tree is then
//! dropped in shallow pieces.

use swc_core::common::{DUMMY_SP, Span, Spanned};
use swc_core::ecma::ast::{
  EmptyStmt, Expr, Ident, Invalid, Pat, Stmt, TsEntityName, TsKeywordType, TsKeywordTypeKind,
  TsModuleBlock, TsNamespaceBody, TsType,
};
use swc_core::ecma::visit::{VisitMut, VisitMutWith};

/// Expression, statement, pattern or type levels a cell may nest (QuickJS itself stops at
/// roughly a thousand nested brackets).
pub const MAX_DEPTH: usize = 2_000;

enum Piece {
  Expr(Expr),
  Stmt(Stmt),
  Pat(Pat),
  Type(TsType),
  Name(TsEntityName),
  Namespace(TsNamespaceBody),
}

/// The visitor behind [`check`].
#[derive(Default)]
pub struct Cutter {
  depth: usize,
  pieces: Vec<Piece>,
  first: Option<Span>,
}

impl Cutter {
  /// Descends into `node`, or cuts it out when it lies too deep.
  fn level<N: VisitMutWith<Self> + Spanned>(
    &mut self,
    node: &mut N,
    cut: impl FnOnce(&mut N) -> Piece,
  ) {
    if self.depth >= MAX_DEPTH {
      self.first.get_or_insert(node.span());
      let piece = cut(node);
      self.pieces.push(piece);
      return;
    }
    self.depth += 1;
    node.visit_mut_children_with(self);
    self.depth -= 1;
  }
}

impl VisitMut for Cutter {
  fn visit_mut_expr(&mut self, node: &mut Expr) {
    self.level(node, |n| {
      Piece::Expr(std::mem::replace(
        n,
        Expr::Invalid(Invalid { span: DUMMY_SP }),
      ))
    });
  }

  fn visit_mut_stmt(&mut self, node: &mut Stmt) {
    self.level(node, |n| {
      Piece::Stmt(std::mem::replace(
        n,
        Stmt::Empty(EmptyStmt { span: DUMMY_SP }),
      ))
    });
  }

  fn visit_mut_pat(&mut self, node: &mut Pat) {
    self.level(node, |n| {
      Piece::Pat(std::mem::replace(
        n,
        Pat::Invalid(Invalid { span: DUMMY_SP }),
      ))
    });
  }

  fn visit_mut_ts_type(&mut self, node: &mut TsType) {
    self.level(node, |n| {
      let any = TsType::TsKeywordType(TsKeywordType {
        span: DUMMY_SP,
        kind: TsKeywordTypeKind::TsAnyKeyword,
      });
      Piece::Type(std::mem::replace(n, any))
    });
  }

  fn visit_mut_ts_entity_name(&mut self, node: &mut TsEntityName) {
    self.level(node, |n| {
      let name = TsEntityName::Ident(Ident::new_no_ctxt("_".into(), DUMMY_SP));
      Piece::Name(std::mem::replace(n, name))
    });
  }

  fn visit_mut_ts_namespace_body(&mut self, node: &mut TsNamespaceBody) {
    self.level(node, |n| {
      let empty = TsNamespaceBody::TsModuleBlock(TsModuleBlock {
        span: DUMMY_SP,
        body: Vec::new(),
      });
      Piece::Namespace(std::mem::replace(n, empty))
    });
  }
}

/// Checks that `node` nests at most `MAX_DEPTH` levels. When it does not, returns the span
/// where it first went too deep; the too-deep parts have been cut out of `node` and dropped,
/// so `node` itself is then shallow (and only good for dropping).
pub(crate) fn check<N: VisitMutWith<Cutter>>(node: &mut N) -> Result<(), Span> {
  let mut cutter = Cutter::default();
  node.visit_mut_with(&mut cutter);
  // Each cut-out piece is cut again from depth 0 until every piece is shallow enough to drop.
  while let Some(mut piece) = cutter.pieces.pop() {
    cutter.depth = 0;
    match &mut piece {
      Piece::Expr(n) => n.visit_mut_children_with(&mut cutter),
      Piece::Stmt(n) => n.visit_mut_children_with(&mut cutter),
      Piece::Pat(n) => n.visit_mut_children_with(&mut cutter),
      Piece::Type(n) => n.visit_mut_children_with(&mut cutter),
      Piece::Name(n) => n.visit_mut_children_with(&mut cutter),
      Piece::Namespace(n) => n.visit_mut_children_with(&mut cutter),
    }
    drop(piece);
  }
  cutter.first.map_or(Ok(()), Err)
}
