//! 13.3.3 Destructuring Binding Patterns

use swc_common::Spanned;

use super::*;
use crate::parser::{expr::AssignTargetOrSpread, Parser};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PatType {
    BindingPat,
    BindingElement,
    /// AssignmentPattern
    AssignPat,
    AssignElement,
}

impl PatType {
    fn element(self) -> Self {
        match self {
            PatType::BindingPat | PatType::BindingElement => PatType::BindingElement,
            PatType::AssignPat | PatType::AssignElement => PatType::AssignElement,
        }
    }
}

fn is_await_ident_or_expr(expr: &Expr) -> bool {
    matches!(expr, Expr::Await(..))
        || matches!(expr, Expr::Ident(Ident { sym, .. }) if &**sym == "await")
}

/// Returns the identifier for a direct `this` pattern or a single assignment
/// layer whose left-hand side is a direct `this` pattern.
fn direct_ts_this_ident(pat: &Pat) -> Option<&Ident> {
    let ident = match pat {
        Pat::Ident(BindingIdent { id, .. }) => id,
        Pat::Assign(AssignPat { left, .. }) => {
            let Pat::Ident(BindingIdent { id, .. }) = &**left else {
                return None;
            };
            id
        }
        _ => return None,
    };

    if &*ident.sym != "this" {
        return None;
    }

    Some(ident)
}

/// The binding information needed by shared parameter-list validation.
/// Implementations borrow it from the final AST instead of retaining a
/// second list of intermediate patterns.
pub(super) trait FormalParameter: ParameterListItem {
    fn binding_ident(&self) -> Option<&BindingIdent>;

    fn direct_this_ident(&self) -> Option<&Ident>;
}

/// The list grammar only needs to know whether an item is a rest parameter.
pub(super) trait ParameterListItem {
    fn rest_span(&self) -> Option<Span>;
}

impl ParameterListItem for Param {
    fn rest_span(&self) -> Option<Span> {
        self.pat.rest_span()
    }
}

impl ParameterListItem for Pat {
    fn rest_span(&self) -> Option<Span> {
        match self {
            Pat::Rest(rest) => Some(rest.span),
            _ => None,
        }
    }
}

impl FormalParameter for Param {
    fn binding_ident(&self) -> Option<&BindingIdent> {
        self.pat.binding_ident()
    }

    fn direct_this_ident(&self) -> Option<&Ident> {
        self.pat.direct_this_ident()
    }
}

impl FormalParameter for Pat {
    fn binding_ident(&self) -> Option<&BindingIdent> {
        self.as_ident()
    }

    fn direct_this_ident(&self) -> Option<&Ident> {
        direct_ts_this_ident(self)
    }
}

impl ParameterListItem for TsFnParam {
    fn rest_span(&self) -> Option<Span> {
        match self {
            Self::Rest(rest) => Some(rest.span),
            _ => None,
        }
    }
}

impl ParameterListItem for ParamOrTsParamProp {
    fn rest_span(&self) -> Option<Span> {
        match self {
            Self::Param(param) => param.rest_span(),
            Self::TsParamProp(_) => None,
            #[cfg(swc_ast_unknown)]
            _ => unreachable!("parser constructs only known parameter variants"),
        }
    }
}

impl FormalParameter for TsFnParam {
    fn binding_ident(&self) -> Option<&BindingIdent> {
        match self {
            Self::Ident(ident) => Some(ident),
            _ => None,
        }
    }

    fn direct_this_ident(&self) -> Option<&Ident> {
        self.binding_ident()
            .map(|ident| &ident.id)
            .filter(|ident| &*ident.sym == "this")
    }
}

impl<I: Tokens> Parser<I> {
    pub fn parse_pat(&mut self) -> PResult<Pat> {
        self.parse_binding_pat_or_ident(false)
    }

    /// argument of arrow is pattern, although idents in pattern is already
    /// checked if is a keyword, it should also be checked if is arguments or
    /// eval
    fn pat_is_valid_argument_in_strict(&mut self, pat: &Pat) {
        debug_assert!(self.ctx().contains(Context::Strict));
        match pat {
            Pat::Ident(i) => {
                if i.is_reserved_in_strict_bind() {
                    self.emit_strict_mode_err(i.span, SyntaxError::EvalAndArgumentsInStrict)
                }
            }
            Pat::Array(arr) => {
                for pat in arr.elems.iter().flatten() {
                    self.pat_is_valid_argument_in_strict(pat)
                }
            }
            Pat::Rest(r) => self.pat_is_valid_argument_in_strict(&r.arg),
            Pat::Object(obj) => {
                for prop in obj.props.iter() {
                    match prop {
                        ObjectPatProp::KeyValue(KeyValuePatProp { value, .. })
                        | ObjectPatProp::Rest(RestPat { arg: value, .. }) => {
                            self.pat_is_valid_argument_in_strict(value)
                        }
                        ObjectPatProp::Assign(AssignPatProp { key, .. }) => {
                            if key.is_reserved_in_strict_bind() {
                                self.emit_strict_mode_err(
                                    key.span,
                                    SyntaxError::EvalAndArgumentsInStrict,
                                )
                            }
                        }
                        #[cfg(swc_ast_unknown)]
                        _ => unreachable!(),
                    }
                }
            }
            Pat::Assign(a) => self.pat_is_valid_argument_in_strict(&a.left),
            Pat::Invalid(_) | Pat::Expr(_) => (),
            #[cfg(swc_ast_unknown)]
            _ => unreachable!(),
        }
    }

    fn assign_pat_type_ann(&mut self, pat: &mut Pat, span: Span, type_ann: Box<TsType>) {
        let type_ann = Some(Box::new(TsTypeAnn { span, type_ann }));

        match pat {
            Pat::Ident(BindingIdent {
                type_ann: target, ..
            })
            | Pat::Array(ArrayPat {
                type_ann: target, ..
            })
            | Pat::Object(ObjectPat {
                type_ann: target, ..
            })
            | Pat::Rest(RestPat {
                type_ann: target, ..
            }) => {
                *target = type_ann;
            }
            _ => {
                self.emit_err(pat.span(), SyntaxError::InvalidPat);
            }
        }
    }

    /// This does not return 'rest' pattern because non-last parameter cannot be
    /// rest.
    pub(super) fn reparse_expr_as_pat(&mut self, pat_ty: PatType, expr: Box<Expr>) -> PResult<Pat> {
        if let Expr::Invalid(i) = *expr {
            return Ok(i.into());
        }
        if pat_ty == PatType::AssignPat {
            match *expr {
                Expr::Object(..) | Expr::Array(..) => {
                    // It is a Syntax Error if LeftHandSideExpression is either
                    // an ObjectLiteral or an ArrayLiteral
                    // and LeftHandSideExpression cannot
                    // be reparsed as an AssignmentPattern.
                }
                _ => {
                    self.check_assign_target(&expr, true);
                }
            }
        }
        self.reparse_expr_as_pat_inner(pat_ty, expr)
    }

    fn reparse_expr_as_pat_inner(&mut self, pat_ty: PatType, expr: Box<Expr>) -> PResult<Pat> {
        // In dts, we do not reparse.
        debug_assert!(!self.input().syntax().dts());
        let span = expr.span();

        if pat_ty == PatType::BindingPat {
            match *expr {
                Expr::TsAs(TsAsExpr {
                    expr,
                    type_ann,
                    span,
                })
                | Expr::TsTypeAssertion(TsTypeAssertion {
                    expr,
                    type_ann,
                    span,
                })
                | Expr::TsSatisfies(TsSatisfiesExpr {
                    expr,
                    type_ann,
                    span,
                }) => {
                    let mut pat = self.reparse_expr_as_pat_inner(pat_ty, expr)?;
                    self.assign_pat_type_ann(&mut pat, span, type_ann);
                    return Ok(pat);
                }
                _ => {}
            }
        }

        if pat_ty == PatType::AssignPat {
            match *expr {
                Expr::Object(..) | Expr::Array(..) => {
                    // It is a Syntax Error if LeftHandSideExpression is either
                    // an ObjectLiteral or an ArrayLiteral
                    // and LeftHandSideExpression cannot
                    // be reparsed as an AssignmentPattern.
                }

                _ => match *expr {
                    // It is a Syntax Error if the LeftHandSideExpression is
                    // CoverParenthesizedExpressionAndArrowParameterList:(Expression) and
                    // Expression derives a phrase that would produce a Syntax Error according
                    // to these rules if that phrase were substituted for
                    // LeftHandSideExpression. This rule is recursively applied.
                    Expr::Paren(..) => {
                        return Ok(expr.into());
                    }
                    Expr::Ident(i) => return Ok(i.into()),
                    _ => {
                        return Ok(expr.into());
                    }
                },
            }
        }

        // AssignmentElement:
        //      DestructuringAssignmentTarget Initializer[+In]?
        //
        // DestructuringAssignmentTarget:
        //      LeftHandSideExpression
        if pat_ty == PatType::AssignElement {
            match *expr {
                Expr::Array(..) | Expr::Object(..) => {}
                Expr::Member(..)
                | Expr::SuperProp(..)
                | Expr::Call(..)
                | Expr::New(..)
                | Expr::Lit(..)
                | Expr::Ident(..)
                | Expr::Fn(..)
                | Expr::Class(..)
                | Expr::Paren(..)
                | Expr::Tpl(..)
                | Expr::TsAs(..)
                | Expr::TsNonNull(..)
                | Expr::TsTypeAssertion(..)
                | Expr::TsInstantiation(..)
                | Expr::TsSatisfies(..) => {
                    if !expr.is_valid_simple_assignment_target(self.ctx().contains(Context::Strict))
                    {
                        self.emit_err(span, SyntaxError::NotSimpleAssign)
                    }
                    match *expr {
                        Expr::Ident(i) => return Ok(i.into()),
                        _ => {
                            return Ok(expr.into());
                        }
                    }
                }
                // It's special because of optional initializer
                Expr::Assign(..) => {}
                _ => self.emit_err(span, SyntaxError::InvalidPat),
            }
        }

        match *expr {
            Expr::Paren(..) => {
                self.emit_err(span, SyntaxError::InvalidPat);
                Ok(Invalid { span }.into())
            }
            Expr::Assign(
                assign_expr @ AssignExpr {
                    op: AssignOp::Assign,
                    ..
                },
            ) => {
                let AssignExpr {
                    span, left, right, ..
                } = assign_expr;
                Ok(AssignPat {
                    span,
                    left: match left {
                        AssignTarget::Simple(left) => {
                            Box::new(self.reparse_expr_as_pat(pat_ty, left.into())?)
                        }
                        AssignTarget::Pat(pat) => pat.into(),
                        #[cfg(swc_ast_unknown)]
                        _ => unreachable!(),
                    },
                    right,
                }
                .into())
            }
            Expr::Object(ObjectLit {
                span: object_span,
                props,
            }) => {
                // {}
                let len = props.len();
                Ok(ObjectPat {
                    span: object_span,
                    props: props
                        .into_iter()
                        .enumerate()
                        .map(|(idx, prop)| {
                            let span = prop.span();
                            match prop {
                                PropOrSpread::Prop(prop) => match *prop {
                                    Prop::Shorthand(id) => {
                                        Ok(ObjectPatProp::Assign(AssignPatProp {
                                            span: id.span(),
                                            key: id.into(),
                                            value: None,
                                        }))
                                    }
                                    Prop::KeyValue(kv_prop) => {
                                        Ok(ObjectPatProp::KeyValue(KeyValuePatProp {
                                            key: kv_prop.key,
                                            value: Box::new(self.reparse_expr_as_pat(
                                                pat_ty.element(),
                                                kv_prop.value,
                                            )?),
                                        }))
                                    }
                                    Prop::Assign(assign_prop) => {
                                        Ok(ObjectPatProp::Assign(AssignPatProp {
                                            span,
                                            key: assign_prop.key.into(),
                                            value: Some(assign_prop.value),
                                        }))
                                    }
                                    _ => syntax_error!(self, prop.span(), SyntaxError::InvalidPat),
                                },

                                PropOrSpread::Spread(SpreadElement { dot3_token, expr }) => {
                                    if idx != len - 1 {
                                        self.emit_err(span, SyntaxError::NonLastRestParam)
                                    } else if let Some(trailing_comma) =
                                        self.state().trailing_commas.get(&object_span.lo)
                                    {
                                        self.emit_err(
                                            *trailing_comma,
                                            SyntaxError::CommaAfterRestElement,
                                        );
                                    };

                                    let element_pat_ty = pat_ty.element();
                                    let pat = if let PatType::BindingElement = element_pat_ty {
                                        if let Expr::Ident(i) = *expr {
                                            i.into()
                                        } else {
                                            self.emit_err(span, SyntaxError::DotsWithoutIdentifier);
                                            Pat::Invalid(Invalid { span })
                                        }
                                    } else if is_array_or_object_literal_rest_target(&expr) {
                                        // Per ECMA-262 13.15.5.1, AssignmentRestProperty's
                                        // DestructuringAssignmentTarget may not be an
                                        // ArrayLiteral or ObjectLiteral.  Parenthesized forms
                                        // are rejected too, matching V8 / SpiderMonkey behavior.
                                        // Other shapes (member access, optional chain, calls)
                                        // are syntactically valid per spec and either reparse
                                        // successfully or throw at runtime.  Closes #11543.
                                        self.emit_err(span, SyntaxError::NotSimpleAssign);
                                        Pat::Invalid(Invalid { span })
                                    } else {
                                        self.reparse_expr_as_pat(element_pat_ty, expr)?
                                    };
                                    if let Pat::Assign(_) = pat {
                                        self.emit_err(span, SyntaxError::TS1048)
                                    };
                                    Ok(ObjectPatProp::Rest(RestPat {
                                        span,
                                        dot3_token,
                                        arg: Box::new(pat),
                                        type_ann: None,
                                    }))
                                }
                                #[cfg(swc_ast_unknown)]
                                _ => unreachable!(),
                            }
                        })
                        .collect::<PResult<_>>()?,
                    optional: false,
                    type_ann: None,
                }
                .into())
            }
            Expr::Ident(ident) => Ok(ident.into()),
            Expr::Array(ArrayLit { elems: exprs, .. }) => {
                let len = exprs.len();
                let mut params = Vec::with_capacity(len);
                // Array literals do not store a trailing comma as an element. Every `None`,
                // including a trailing one, is an elision that advances the iterator in both
                // binding and assignment patterns.
                for (idx, expr) in exprs.into_iter().enumerate() {
                    let pat = match expr {
                        Some(
                            expr @ ExprOrSpread {
                                spread: Some(..), ..
                            },
                        ) if idx + 1 != len => {
                            self.emit_err(expr.span(), SyntaxError::NonLastRestParam);
                            continue;
                        }
                        Some(ExprOrSpread {
                            spread: Some(dot3_token),
                            expr,
                        }) => {
                            if let Expr::Assign(_) = *expr {
                                self.emit_err(dot3_token.to(expr.span()), SyntaxError::TS1048);
                            };
                            if let Some(trailing_comma) = self.state().trailing_commas.get(&span.lo)
                            {
                                self.emit_err(*trailing_comma, SyntaxError::CommaAfterRestElement);
                            }
                            let expr_span = expr.span();
                            self.reparse_expr_as_pat(pat_ty.element(), expr)
                                .map(|pat| {
                                    RestPat {
                                        span: expr_span,
                                        dot3_token,
                                        arg: Box::new(pat),
                                        type_ann: None,
                                    }
                                    .into()
                                })
                                .map(Some)?
                        }
                        Some(ExprOrSpread { expr, .. }) => {
                            self.reparse_expr_as_pat(pat_ty.element(), expr).map(Some)?
                        }
                        None => None,
                    };
                    params.push(pat);
                }
                Ok(ArrayPat {
                    span,
                    elems: params,
                    optional: false,
                    type_ann: None,
                }
                .into())
            }

            // Invalid patterns.
            // Note that assignment expression with '=' is valid, and handled above.
            Expr::Lit(..) | Expr::Assign(..) => {
                self.emit_err(span, SyntaxError::InvalidPat);
                Ok(Invalid { span }.into())
            }

            Expr::Yield(..) if self.includes_yield_expr() => {
                self.emit_err(span, SyntaxError::InvalidPat);
                Ok(Invalid { span }.into())
            }

            _ => {
                self.emit_err(span, SyntaxError::InvalidPat);

                Ok(Invalid { span }.into())
            }
        }
    }

    pub(super) fn parse_binding_element(&mut self) -> PResult<Pat> {
        self.parse_binding_element_with_initializer()
            .map(|(pat, _)| pat)
    }

    /// Returns the span of an initializer owned by this binding element.
    /// Initializers nested in destructuring patterns are not propagated.
    fn parse_binding_element_with_initializer(&mut self) -> PResult<(Pat, Option<Span>)> {
        trace_cur!(self, parse_binding_element);

        let start = self.cur_pos();
        let left = self.parse_binding_pat_or_ident(false)?;

        if self.input_mut().eat(Token::Eq) {
            let initializer_span = self.input().prev_span();

            let right =
                with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)?;

            if self.boundary_ctx().contains(BoundaryContext::InParameters)
                && self.includes_await_expr()
                && is_await_ident_or_expr(&right)
            {
                self.emit_err(right.span(), SyntaxError::AwaitParamInAsync);
            }

            if self.type_ctx().contains(TypeContext::InDeclare) {
                self.emit_err(self.span(start), SyntaxError::TS2371);
            }

            return Ok((
                AssignPat {
                    span: self.span(start),
                    left: Box::new(left),
                    right,
                }
                .into(),
                Some(initializer_span),
            ));
        }

        Ok((left, None))
    }

    pub(crate) fn parse_binding_pat_or_ident(&mut self, disallow_let: bool) -> PResult<Pat> {
        trace_cur!(self, parse_binding_pat_or_ident);

        let cur = self.input().cur();
        if cur.is_word() {
            self.parse_binding_ident(disallow_let).map(Pat::from)
        } else if cur == Token::LBracket {
            self.parse_array_binding_pat()
        } else if cur == Token::LBrace {
            self.parse_object_pat()
        } else if cur == Token::Error {
            let err = self.input_mut().expect_error_token_and_bump();
            Err(err)
        } else {
            unexpected!(self, "yield, an identifier, [ or {")
        }
    }

    fn parse_array_binding_pat(&mut self) -> PResult<Pat> {
        let start = self.cur_pos();

        self.assert_and_bump(Token::LBracket);

        let mut elems = Vec::new();

        let mut rest_span = Span::default();

        while !self.input().is(Token::RBracket) {
            if self.input_mut().eat(Token::Comma) {
                elems.push(None);
                continue;
            }

            if !rest_span.is_dummy() {
                self.emit_err(rest_span, SyntaxError::NonLastRestParam);
            }

            let start = self.cur_pos();

            let mut is_rest = false;
            if self.input_mut().eat(Token::DotDotDot) {
                is_rest = true;
                let dot3_token = self.span(start);

                let pat = self.parse_binding_pat_or_ident(false)?;
                rest_span = self.span(start);
                let pat = RestPat {
                    span: rest_span,
                    dot3_token,
                    arg: Box::new(pat),
                    type_ann: None,
                }
                .into();
                elems.push(Some(pat));
            } else {
                elems.push(self.parse_binding_element().map(Some)?);
            }

            if !self.input().is(Token::RBracket) {
                expect!(self, Token::Comma);
                if is_rest && self.input().is(Token::RBracket) {
                    self.emit_err(self.input().prev_span(), SyntaxError::CommaAfterRestElement);
                }
            }
        }

        expect!(self, Token::RBracket);
        let optional = (self.input().syntax().dts()
            || self.type_ctx().contains(TypeContext::InDeclare))
            && self.input_mut().eat(Token::QuestionMark);

        Ok(ArrayPat {
            span: self.span(start),
            elems,
            optional,
            type_ann: None,
        }
        .into())
    }

    /// spec: 'FormalParameter'
    ///
    /// babel: `parseAssignableListItem`
    pub(crate) fn parse_formal_param_pat(&mut self) -> PResult<Pat> {
        let start = self.cur_pos();

        let has_modifier = self.eat_any_ts_modifier()?;

        let pat_start = self.cur_pos();
        let (mut pat, initializer_span) = self.parse_binding_element_with_initializer()?;
        let is_direct_ts_this_param = self.syntax().typescript()
            && !self.syntax().flow()
            && direct_ts_this_ident(&pat).is_some();
        if let (true, Some(initializer_span)) = (is_direct_ts_this_param, initializer_span) {
            self.emit_err(
                initializer_span,
                SyntaxError::Expected(",".into(), "=".into()),
            );
        }
        let mut opt = false;

        if self.input().syntax().typescript() {
            if self.input_mut().eat(Token::QuestionMark) {
                if is_direct_ts_this_param {
                    self.emit_err(
                        self.input().prev_span(),
                        SyntaxError::Expected(",".into(), "?".into()),
                    );
                }

                match pat {
                    Pat::Ident(BindingIdent {
                        id:
                            Ident {
                                ref mut optional, ..
                            },
                        ..
                    })
                    | Pat::Array(ArrayPat {
                        ref mut optional, ..
                    })
                    | Pat::Object(ObjectPat {
                        ref mut optional, ..
                    }) => {
                        *optional = true;
                        opt = true;
                    }
                    _ if self.input().syntax().dts()
                        || self.type_ctx().contains(TypeContext::InDeclare) => {}
                    _ => {
                        syntax_error!(
                            self,
                            self.input().prev_span(),
                            SyntaxError::TsBindingPatCannotBeOptional
                        );
                    }
                }
            }

            match pat {
                Pat::Array(ArrayPat {
                    ref mut type_ann,
                    ref mut span,
                    ..
                })
                | Pat::Object(ObjectPat {
                    ref mut type_ann,
                    ref mut span,
                    ..
                })
                | Pat::Rest(RestPat {
                    ref mut type_ann,
                    ref mut span,
                    ..
                }) => {
                    let new_type_ann = self.try_parse_ts_type_ann()?;
                    if new_type_ann.is_some() {
                        *span = Span::new_with_checked(pat_start, self.input().prev_span().hi);
                    }
                    *type_ann = new_type_ann;
                }

                Pat::Ident(BindingIdent {
                    ref mut type_ann, ..
                }) => {
                    let new_type_ann = self.try_parse_ts_type_ann()?;
                    *type_ann = new_type_ann;
                }

                Pat::Assign(AssignPat { ref mut span, .. }) => {
                    if (self.try_parse_ts_type_ann()?).is_some() {
                        *span = Span::new_with_checked(pat_start, self.input().prev_span().hi);
                        self.emit_err(*span, SyntaxError::TSTypeAnnotationAfterAssign);
                    }
                }
                Pat::Invalid(..) => {}
                _ => unreachable!("invalid syntax: Pat: {:?}", pat),
            }
        }

        let pat = if self.input_mut().eat(Token::Eq) {
            if is_direct_ts_this_param && !opt {
                self.emit_err(
                    self.input().prev_span(),
                    SyntaxError::Expected(",".into(), "=".into()),
                );
            }

            // `=` cannot follow optional parameter.
            if opt && !is_direct_ts_this_param && !self.input().syntax().flow() {
                self.emit_err(pat.span(), SyntaxError::TS1015);
            }

            let right = self.parse_assignment_expr()?;
            if self.boundary_ctx().contains(BoundaryContext::InParameters)
                && self.includes_await_expr()
                && is_await_ident_or_expr(&right)
            {
                self.emit_err(right.span(), SyntaxError::AwaitParamInAsync);
            }
            if self.type_ctx().contains(TypeContext::InDeclare) {
                self.emit_err(self.span(start), SyntaxError::TS2371);
            }

            AssignPat {
                span: self.span(start),
                left: Box::new(pat),
                right,
            }
            .into()
        } else {
            pat
        };

        if has_modifier {
            self.emit_err(self.span(start), SyntaxError::TS2369);
            return Ok(pat);
        }

        Ok(pat)
    }

    fn parse_constructor_param(
        &mut self,
        param_start: BytePos,
        decorators: Vec<Decorator>,
    ) -> PResult<ParamOrTsParamProp> {
        let (accessibility, is_override, readonly) = if self.input().syntax().typescript() {
            let accessibility = self.parse_access_modifier()?;
            (
                accessibility,
                self.parse_ts_modifier(&[Token::Override], false)?.is_some(),
                self.parse_ts_modifier(&[Token::Readonly], false)?.is_some(),
            )
        } else {
            (None, false, false)
        };
        if accessibility.is_none() && !is_override && !readonly {
            let pat = self.parse_formal_param_pat()?;
            Ok(ParamOrTsParamProp::Param(Param {
                span: self.span(param_start),
                decorators,
                pat,
            }))
        } else {
            let param = match self.parse_formal_param_pat()? {
                Pat::Ident(i) => TsParamPropParam::Ident(i),
                Pat::Assign(a) => TsParamPropParam::Assign(a),
                node => syntax_error!(self, node.span(), SyntaxError::TsInvalidParamPropPat),
            };
            Ok(ParamOrTsParamProp::TsParamProp(TsParamProp {
                span: self.span(param_start),
                accessibility,
                is_override,
                readonly,
                decorators,
                param,
            }))
        }
    }

    pub(crate) fn parse_constructor_params(&mut self) -> PResult<Vec<ParamOrTsParamProp>> {
        self.do_inside_of_boundary_context(BoundaryContext::InParameters, |p| {
            p.with_syntax_context(
                super::SyntaxContext::Parameters,
                Self::parse_constructor_params_inner,
            )
        })
    }

    fn parse_constructor_params_inner(&mut self) -> PResult<Vec<ParamOrTsParamProp>> {
        self.parse_parameter_list(|p, _| {
            let param_start = p.cur_pos();
            let decorators = p.parse_decorators(false)?;
            let pat_start = p.cur_pos();

            if p.input_mut().eat(Token::DotDotDot) {
                let dot3_token = p.span(pat_start);

                let pat = p.parse_binding_pat_or_ident(false)?;
                let type_ann = if p.input().syntax().typescript() && p.input().is(Token::Colon) {
                    let cur_pos = p.cur_pos();
                    Some(p.parse_ts_type_ann(/* eat_colon */ true, cur_pos)?)
                } else {
                    None
                };

                let rest_span = p.span(pat_start);
                let pat = RestPat {
                    span: rest_span,
                    dot3_token,
                    arg: Box::new(pat),
                    type_ann,
                }
                .into();
                Ok(ParamOrTsParamProp::Param(Param {
                    span: p.span(param_start),
                    decorators,
                    pat,
                }))
            } else {
                p.parse_constructor_param(param_start, decorators)
            }
        })
    }

    pub(crate) fn parse_formal_params(&mut self) -> PResult<Vec<Param>> {
        self.parse_formal_params_with(|_, param| Ok(param))
    }

    /// Arrow ASTs retain patterns without parameter decorator wrappers.
    #[cfg(feature = "typescript")]
    pub(super) fn parse_formal_param_patterns(&mut self) -> PResult<Vec<Pat>> {
        self.parse_formal_params_with(|_, param| Ok(param.pat))
    }

    fn parse_formal_params_with<T: FormalParameter>(
        &mut self,
        convert: impl FnMut(&mut Self, Param) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        self.do_inside_of_boundary_context(BoundaryContext::InParameters, |p| {
            p.with_syntax_context(super::SyntaxContext::Parameters, |p| {
                p.parse_formal_params_inner(convert)
            })
        })
    }

    /// Shares parameter grammar while constructing the consumer's final
    /// representation.
    pub(super) fn parse_formal_params_inner<T: FormalParameter>(
        &mut self,
        mut convert: impl FnMut(&mut Self, Param) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let params = self.parse_parameter_list(|p, index| {
            // Construct and convert in the same production so pattern-only
            // consumers do not carry a separate parameter return value.
            let param_start = p.cur_pos();
            let decorators = p.parse_decorators(false)?;
            let pat_start = p.cur_pos();

            let pat = if let Some(pat) = p.try_parse_flow_anon_formal_param(index)? {
                pat
            } else if p.input_mut().eat(Token::DotDotDot) {
                p.parse_rest_parameter(pat_start)?
            } else {
                p.parse_formal_param_pat()?
            };
            let param = Param {
                span: p.span(param_start),
                decorators,
                pat,
            };
            convert(p, param)
        })?;

        if self.syntax().typescript() && !self.syntax().flow() {
            for param in params.iter().skip(1) {
                let Some(ident) = param.direct_this_ident() else {
                    continue;
                };
                self.emit_err(ident.span, SyntaxError::TS2680);
            }
        }

        if self.syntax().flow() && !self.type_ctx().contains(TypeContext::InType) {
            let in_declare = self.type_ctx().contains(TypeContext::InDeclare);

            for (idx, param) in params.iter().enumerate() {
                if let Some(ident) = param.binding_ident() {
                    if ident.id.sym == *"this" {
                        if idx != 0 {
                            self.emit_err(ident.id.span, SyntaxError::TS1003);
                        }
                        if ident.id.optional {
                            self.emit_err(ident.id.span, SyntaxError::TS1003);
                        }
                        if ident.type_ann.is_none() && !in_declare {
                            self.emit_err(ident.id.span, SyntaxError::TS1003);
                        }
                    }
                }
            }
        }

        Ok(params)
    }

    /// Parses a parameter list into its final AST representation. Individual
    /// parameter grammar and list-wide binding validation remain with callers.
    pub(super) fn parse_parameter_list<T: ParameterListItem>(
        &mut self,
        mut parse: impl FnMut(&mut Self, usize) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut params = Vec::new();
        let mut rest_span = Span::default();

        while !self.input().is(Token::RParen) {
            if !rest_span.is_dummy() {
                self.emit_err(rest_span, SyntaxError::TS1014);
            }

            let param = parse(self, params.len())?;
            let current_rest = param.rest_span();
            if let Some(span) = current_rest {
                rest_span = span;
            }
            params.push(param);

            if !self.input().is(Token::RParen) {
                expect!(self, Token::Comma);
                // Ambient TypeScript signatures allow a trailing comma after rest.
                if current_rest.is_some()
                    && self.input().is(Token::RParen)
                    && (!self.type_ctx().contains(TypeContext::InDeclare) || self.syntax().flow())
                {
                    self.emit_err(self.input().prev_span(), SyntaxError::CommaAfterRestElement);
                }
            }
        }

        Ok(params)
    }

    /// Parses the binding and annotation after an already consumed `...`.
    /// List-level rest placement and trailing-comma checks belong to the
    /// caller.
    pub(super) fn parse_rest_parameter(&mut self, pat_start: BytePos) -> PResult<Pat> {
        let dot3_token = self.span(pat_start);

        let mut pat = self.parse_binding_pat_or_ident(false)?;

        if self.input_mut().eat(Token::Eq) {
            let right = self.parse_assignment_expr()?;
            self.emit_err(pat.span(), SyntaxError::TS1048);
            pat = AssignPat {
                span: self.span(pat_start),
                left: Box::new(pat),
                right,
            }
            .into();
        }

        let type_ann = if self.input().syntax().typescript() && self.input().is(Token::Colon) {
            let cur_pos = self.cur_pos();
            let ty = self.parse_ts_type_ann(/* eat_colon */ true, cur_pos)?;
            Some(ty)
        } else {
            None
        };

        let rest_span = self.span(pat_start);
        let pat = RestPat {
            span: rest_span,
            dot3_token,
            arg: Box::new(pat),
            type_ann,
        }
        .into();

        if self.syntax().typescript() && self.input_mut().eat(Token::QuestionMark) {
            self.emit_err(self.input().prev_span(), SyntaxError::TS1047);
        }

        Ok(pat)
    }

    pub(crate) fn parse_unique_formal_params(&mut self) -> PResult<Vec<Param>> {
        // FIXME: This is wrong
        self.parse_formal_params()
    }

    pub(super) fn parse_paren_items_as_params(
        &mut self,
        mut exprs: Vec<AssignTargetOrSpread>,
        trailing_comma: Option<Span>,
    ) -> PResult<Vec<Pat>> {
        let pat_ty = PatType::BindingPat;

        let len = exprs.len();
        if len == 0 {
            return Ok(Vec::new());
        }

        let mut params = Vec::with_capacity(len);

        for expr in exprs.drain(..len - 1) {
            match expr {
                AssignTargetOrSpread::ExprOrSpread(ExprOrSpread {
                    spread: Some(..), ..
                })
                | AssignTargetOrSpread::Pat(Pat::Rest(..)) => {
                    self.emit_err(expr.span(), SyntaxError::TS1014)
                }
                AssignTargetOrSpread::ExprOrSpread(ExprOrSpread {
                    spread: None, expr, ..
                }) => params.push(self.reparse_expr_as_pat(pat_ty, expr)?),
                AssignTargetOrSpread::Pat(pat) => params.push(pat),
            }
        }

        debug_assert_eq!(exprs.len(), 1);
        let expr = exprs.pop().unwrap();
        let outer_expr_span = expr.span();
        let last = match expr {
            // Rest
            AssignTargetOrSpread::ExprOrSpread(ExprOrSpread {
                spread: Some(dot3_token),
                expr,
            }) => {
                if let Expr::Assign(_) = *expr {
                    self.emit_err(outer_expr_span, SyntaxError::TS1048)
                };
                if let Some(trailing_comma) = trailing_comma {
                    self.emit_err(trailing_comma, SyntaxError::CommaAfterRestElement);
                }
                let expr_span = expr.span();
                self.reparse_expr_as_pat(pat_ty, expr).map(|pat| {
                    RestPat {
                        span: expr_span,
                        dot3_token,
                        arg: Box::new(pat),
                        type_ann: None,
                    }
                    .into()
                })?
            }
            AssignTargetOrSpread::ExprOrSpread(ExprOrSpread { expr, .. }) => {
                self.reparse_expr_as_pat(pat_ty, expr)?
            }
            AssignTargetOrSpread::Pat(pat) => {
                if let Some(trailing_comma) = trailing_comma {
                    if let Pat::Rest(..) = pat {
                        self.emit_err(trailing_comma, SyntaxError::CommaAfterRestElement);
                    }
                }
                pat
            }
        };
        params.push(last);

        if self.ctx().contains(Context::Strict) {
            for param in params.iter() {
                self.pat_is_valid_argument_in_strict(param)
            }
        }
        Ok(params)
    }
}

/// Returns `true` when `expr` is a `{...}` or `[...]` literal (possibly wrapped
/// in parentheses).  Used to detect invalid `AssignmentRestProperty` targets
/// per ECMA-262 13.15.5.1.
fn is_array_or_object_literal_rest_target(expr: &Expr) -> bool {
    match expr {
        Expr::Array(_) | Expr::Object(_) => true,
        Expr::Paren(ParenExpr { expr, .. }) => is_array_or_object_literal_rest_target(expr),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use swc_atoms::atom;
    use swc_common::DUMMY_SP as span;
    use swc_ecma_visit::assert_eq_ignore_span;

    use super::*;

    fn array_pat(s: &'static str) -> Pat {
        test_parser(s, Syntax::default(), |p| p.parse_array_binding_pat())
    }

    fn object_pat(s: &'static str) -> Pat {
        test_parser(s, Syntax::default(), |p| {
            p.parse_binding_pat_or_ident(false)
        })
    }

    fn ident(s: &str) -> Ident {
        Ident::new_no_ctxt(s.into(), span)
    }

    fn ident_name(s: &str) -> IdentName {
        IdentName::new(s.into(), span)
    }

    fn rest() -> Option<Pat> {
        Some(
            RestPat {
                span,
                dot3_token: span,
                type_ann: None,
                arg: ident("tail").into(),
            }
            .into(),
        )
    }

    #[test]
    fn array_pat_simple() {
        assert_eq_ignore_span!(
            array_pat("[a, [b], [c]]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![
                    Some(Pat::Ident(ident("a").into())),
                    Some(Pat::Array(ArrayPat {
                        span,
                        optional: false,
                        elems: vec![Some(Pat::Ident(ident("b").into()))],
                        type_ann: None
                    })),
                    Some(Pat::Array(ArrayPat {
                        span,
                        optional: false,
                        elems: vec![Some(Pat::Ident(ident("c").into()))],
                        type_ann: None
                    }))
                ],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_pat_empty_start() {
        assert_eq_ignore_span!(
            array_pat("[, a, [b], [c]]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![
                    None,
                    Some(Pat::Ident(ident("a").into())),
                    Some(Pat::Array(ArrayPat {
                        span,
                        optional: false,
                        elems: vec![Some(Pat::Ident(ident("b").into()))],
                        type_ann: None
                    })),
                    Some(Pat::Array(ArrayPat {
                        span,
                        optional: false,
                        elems: vec![Some(Pat::Ident(ident("c").into()))],
                        type_ann: None
                    }))
                ],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_pat_empty() {
        assert_eq_ignore_span!(
            array_pat("[a, , [b], [c]]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![
                    Some(Pat::Ident(ident("a").into())),
                    None,
                    Some(Pat::Array(ArrayPat {
                        span,
                        optional: false,
                        elems: vec![Some(Pat::Ident(ident("b").into()))],
                        type_ann: None
                    })),
                    Some(Pat::Array(ArrayPat {
                        span,
                        optional: false,
                        elems: vec![Some(Pat::Ident(ident("c").into()))],
                        type_ann: None
                    }))
                ],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_pat_empty_end() {
        assert_eq_ignore_span!(
            array_pat("[a, ,]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![Some(Pat::Ident(ident("a").into())), None,],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_binding_pattern_tail() {
        assert_eq_ignore_span!(
            array_pat("[...tail]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![rest()],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_binding_pattern_assign() {
        assert_eq_ignore_span!(
            array_pat("[,a=1,]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![
                    None,
                    Some(Pat::Assign(AssignPat {
                        span,
                        left: Box::new(Pat::Ident(ident("a").into())),
                        right: Box::new(Expr::Lit(Lit::Num(Number {
                            span,
                            value: 1.0,
                            raw: Some(atom!("1"))
                        })))
                    }))
                ],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_binding_pattern_tail_with_elems() {
        assert_eq_ignore_span!(
            array_pat("[,,,...tail]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![None, None, None, rest()],
                type_ann: None
            })
        );
    }

    #[test]
    fn array_binding_pattern_tail_inside_tail() {
        assert_eq_ignore_span!(
            array_pat("[,,,...[...tail]]"),
            Pat::Array(ArrayPat {
                span,
                optional: false,
                elems: vec![
                    None,
                    None,
                    None,
                    Some(Pat::Rest(RestPat {
                        span,
                        dot3_token: span,
                        type_ann: None,
                        arg: Box::new(Pat::Array(ArrayPat {
                            span,
                            optional: false,
                            elems: vec![rest()],
                            type_ann: None
                        }))
                    }))
                ],
                type_ann: None
            })
        );
    }

    #[test]
    fn object_binding_pattern_tail() {
        assert_eq_ignore_span!(
            object_pat("{...obj}"),
            Pat::Object(ObjectPat {
                span,
                type_ann: None,
                optional: false,
                props: vec![ObjectPatProp::Rest(RestPat {
                    span,
                    dot3_token: span,
                    type_ann: None,
                    arg: Box::new(Pat::Ident(ident("obj").into()))
                })]
            })
        );
    }

    #[test]
    fn object_binding_pattern_with_prop() {
        assert_eq_ignore_span!(
            object_pat("{prop = 10 }"),
            Pat::Object(ObjectPat {
                span,
                type_ann: None,
                optional: false,
                props: vec![ObjectPatProp::Assign(AssignPatProp {
                    span,
                    key: ident("prop").into(),
                    value: Some(Box::new(Expr::Lit(Lit::Num(Number {
                        span,
                        value: 10.0,
                        raw: Some(atom!("10"))
                    }))))
                })]
            })
        );
    }

    #[test]
    fn object_binding_pattern_with_prop_and_label() {
        fn prop(key: PropName, assign_name: &str, expr: Expr) -> PropOrSpread {
            PropOrSpread::Prop(Box::new(Prop::KeyValue(KeyValueProp {
                key,
                value: AssignExpr {
                    span,
                    op: AssignOp::Assign,
                    left: ident(assign_name).into(),
                    right: Box::new(expr),
                }
                .into(),
            })))
        }

        assert_eq_ignore_span!(
            object_pat(
                "{obj = {$: num = 10, '': sym = '', \" \": quote = \" \", _: under = [...tail],}}"
            ),
            Pat::Object(ObjectPat {
                span,
                type_ann: None,
                optional: false,
                props: vec![ObjectPatProp::Assign(AssignPatProp {
                    span,
                    key: ident("obj").into(),
                    value: Some(Box::new(Expr::Object(ObjectLit {
                        span,
                        props: vec![
                            prop(
                                PropName::Ident(ident_name("$")),
                                "num",
                                Expr::Lit(Lit::Num(Number {
                                    span,
                                    value: 10.0,
                                    raw: Some(atom!("10"))
                                }))
                            ),
                            prop(
                                PropName::Str(Str {
                                    span,
                                    value: atom!("").into(),
                                    raw: Some(atom!("''")),
                                }),
                                "sym",
                                Expr::Lit(Lit::Str(Str {
                                    span,
                                    value: atom!("").into(),
                                    raw: Some(atom!("''")),
                                }))
                            ),
                            prop(
                                PropName::Str(Str {
                                    span,
                                    value: atom!(" ").into(),
                                    raw: Some(atom!("\" \"")),
                                }),
                                "quote",
                                Expr::Lit(Lit::Str(Str {
                                    span,
                                    value: atom!(" ").into(),
                                    raw: Some(atom!("\" \"")),
                                }))
                            ),
                            prop(
                                PropName::Ident(ident_name("_")),
                                "under",
                                Expr::Array(ArrayLit {
                                    span,
                                    elems: vec![Some(ExprOrSpread {
                                        spread: Some(span),
                                        expr: Box::new(Expr::Ident(ident("tail")))
                                    })]
                                })
                            ),
                        ]
                    })))
                })]
            })
        );
    }
}
