use std::collections::{HashMap, HashSet};

use swc_atoms::{atom, Atom};
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::*;

use crate::{
    error::SyntaxError,
    input::Tokens,
    lexer::Token,
    parser::{
        state::State,
        util::{is_ts_ambient_initializer, IsInvalidClassName, IsSimpleParameterList},
        BoundaryContext, FunctionKind, StatementContext, SyntaxContext, TypeContext,
    },
    PResult, Parser,
};

struct MakeMethodArgs {
    start: BytePos,
    accessibility: Option<Accessibility>,
    is_abstract: bool,
    static_token: Option<Span>,
    decorators: Vec<Decorator>,
    is_optional: bool,
    is_override: bool,
    key: Key,
    kind: MethodKind,
    is_async: bool,
    is_generator: bool,
}

/// Parses a leading TypeScript or Flow `this` parameter directly into its
/// dedicated AST node. Invalid optional markers and initializers are recovered
/// here so the `this` parameter never enters the ordinary parameter list.
fn parse_ts_this_param<I: Tokens>(p: &mut Parser<I>) -> PResult<Option<Box<TsThisParam>>> {
    if !p.syntax().typescript() || !p.input().is(Token::This) {
        return Ok(None);
    }

    let start = p.cur_pos();
    let this_span = p.input().cur_span();
    let is_flow = p.syntax().flow();
    p.bump();

    let is_optional = p.input_mut().eat(Token::QuestionMark);
    if is_optional {
        let error = if is_flow {
            SyntaxError::TS1003
        } else {
            SyntaxError::Expected(",".into(), "?".into())
        };
        p.emit_err(p.input().prev_span(), error);
    }

    let type_ann = p.try_parse_ts_type_ann()?;
    if is_flow
        && type_ann.is_none()
        && !p.type_ctx().contains(TypeContext::InType)
        && !p.type_ctx().contains(TypeContext::InDeclare)
    {
        p.emit_err(this_span, SyntaxError::TS1003);
    }

    let span = p.span(start);
    if p.input_mut().eat(Token::Eq) {
        if !is_optional {
            let error = if is_flow {
                SyntaxError::TS1003
            } else {
                SyntaxError::Expected(",".into(), "=".into())
            };
            p.emit_err(p.input().prev_span(), error);
        }
        with_grammar_context!(p, [+In, ?Yield, ?Await], |p| p.parse_assignment_expr())?;
    }

    if !p.input().is(Token::RParen) {
        expect!(p, Token::Comma);
        if p.input().is(Token::This) {
            let error = if is_flow {
                SyntaxError::TS1003
            } else {
                SyntaxError::TS2680
            };
            p.emit_err(p.input().cur_span(), error);
        }
    }

    Ok(Some(Box::new(TsThisParam {
        span,
        this_span,
        type_ann,
    })))
}

impl<I: Tokens> Parser<I> {
    /// If `required` is `true`, this never returns `None`.
    fn parse_maybe_opt_binding_ident(
        &mut self,
        required: bool,
        disallow_let: bool,
    ) -> PResult<Option<Ident>> {
        if required {
            self.parse_binding_ident(disallow_let)
                .map(|v| v.id)
                .map(Some)
        } else {
            self.parse_opt_binding_ident(disallow_let)
                .map(|v| v.map(|v| v.id))
        }
    }

    /// Ambient function names, unlike ambient variables, may be `eval` or
    /// `arguments` even in a strict-mode module.
    fn parse_maybe_opt_function_ident(&mut self, required: bool) -> PResult<Option<Ident>> {
        if self.syntax().typescript()
            && !self.syntax().flow()
            && self.type_ctx().contains(TypeContext::InDeclare)
            && self.input().is(Token::Ident)
        {
            let word = self.input().cur().take_word(self.input());
            if word == atom!("eval") || word == atom!("arguments") {
                return self.parse_ident(true, true).map(Some);
            }
        }
        self.parse_maybe_opt_binding_ident(required, false)
    }

    fn parse_maybe_decorator_args(&mut self, expr: Box<Expr>) -> PResult<Box<Expr>> {
        let type_args = if self.input().syntax().typescript() && self.input().is(Token::Lt) {
            Some(self.parse_ts_type_args()?)
        } else {
            None
        };

        if type_args.is_none() && !self.input().is(Token::LParen) {
            return Ok(expr);
        }

        let args = self.parse_args(false)?;
        Ok(CallExpr {
            span: self.span(expr.span_lo()),
            callee: Callee::Expr(expr),
            args,
            ..Default::default()
        }
        .into())
    }

    pub(crate) fn parse_decorators(&mut self, allow_export: bool) -> PResult<Vec<Decorator>> {
        if !self.syntax().decorators() {
            return Ok(Vec::new());
        }
        trace_cur!(self, parse_decorators);

        let mut decorators = Vec::new();
        let start = self.cur_pos();

        while self.input().is(Token::At) {
            if self.syntax().flow() && peek!(self).is_some_and(|peek| peek == Token::At) {
                break;
            }
            decorators.push(self.parse_decorator()?);
        }
        if decorators.is_empty() {
            return Ok(decorators);
        }

        if self.input().is(Token::Export) {
            if !self.boundary_ctx().contains(BoundaryContext::InClass)
                && self.syntax_context != SyntaxContext::FunctionBody
                && !allow_export
            {
                syntax_error!(self, self.input().cur_span(), SyntaxError::ExportNotAllowed);
            }

            if !self.boundary_ctx().contains(BoundaryContext::InClass)
                && self.syntax_context != SyntaxContext::FunctionBody
                && !self.syntax().decorators_before_export()
            {
                syntax_error!(self, self.span(start), SyntaxError::DecoratorOnExport);
            }
        } else if self.syntax().flow_decorators()
            && !self.boundary_ctx().contains(BoundaryContext::InClass)
            && self.syntax_context != SyntaxContext::FunctionBody
            && !self.input().is(Token::Class)
        {
            syntax_error!(self, self.span(start), SyntaxError::InvalidLeadingDecorator)
        }

        Ok(decorators)
    }

    fn parse_decorator(&mut self) -> PResult<Decorator> {
        let start = self.cur_pos();
        trace_cur!(self, parse_decorator);

        self.assert_and_bump(Token::At);

        let expr = if self.input_mut().eat(Token::LParen) {
            let expr = self.parse_expr()?;
            expect!(self, Token::RParen);
            expr
        } else {
            let expr = self
                .parse_ident(false, false)
                .map(Expr::from)
                .map(Box::new)?;

            self.parse_subscripts(Callee::Expr(expr), false, true)?
        };

        let expr = self.parse_maybe_decorator_args(expr)?;

        Ok(Decorator {
            span: self.span(start),
            expr,
        })
    }

    pub(crate) fn parse_access_modifier(&mut self) -> PResult<Option<Accessibility>> {
        Ok(self
            .parse_ts_modifier(
                &[
                    Token::Public,
                    Token::Protected,
                    Token::Private,
                    Token::In,
                    Token::Out,
                ],
                false,
            )?
            .and_then(|t| match t {
                Token::Public => {
                    if self.syntax().flow() {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1274(atom!("public")),
                        );
                    }
                    Some(Accessibility::Public)
                }
                Token::Protected => {
                    if self.syntax().flow() {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1274(atom!("protected")),
                        );
                    }
                    Some(Accessibility::Protected)
                }
                Token::Private => {
                    if self.syntax().flow() {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1274(atom!("private")),
                        );
                    }
                    Some(Accessibility::Private)
                }
                Token::In | Token::Out => {
                    let modifier_str = if t == Token::In { "in" } else { "out" };
                    self.emit_err(
                        self.input().prev_span(),
                        SyntaxError::TS1274(modifier_str.into()),
                    );
                    None
                }
                _ => None,
            }))
    }

    fn parse_super_class(&mut self) -> PResult<(Box<Expr>, Option<Box<TsTypeParamInstantiation>>)> {
        let super_class = self.parse_lhs_expr()?;
        match *super_class {
            Expr::TsInstantiation(TsInstantiation {
                expr, type_args, ..
            }) => Ok((expr, Some(type_args))),
            _ => {
                // We still need to parse TS type arguments,
                // because in some cases "super class" returned by `parse_lhs_expr`
                // may not include `TsExprWithTypeArgs`
                // but it's a super class with type params, for example, in JSX.
                if self.syntax().typescript() && self.input().is(Token::Lt) {
                    let ret = self.parse_ts_type_args()?;
                    Ok((super_class, Some(ret)))
                } else {
                    Ok((super_class, None))
                }
            }
        }
    }

    fn is_class_method(&mut self) -> bool {
        let cur = self.input().cur();
        cur == Token::LParen
            || (self.input().syntax().typescript()
                && (cur == Token::Lt || cur == Token::JSXTagStart))
    }

    fn is_class_property(&mut self, asi: bool) -> bool {
        let cur = self.input().cur();
        (self.input().syntax().typescript() && (cur == Token::Bang || cur == Token::Colon))
            || (cur == Token::Eq || cur == Token::RBrace)
            || if asi {
                self.is_general_semi()
            } else {
                self.input().is(Token::Semi)
            }
    }

    fn parse_class_prop_name(&mut self) -> PResult<Key> {
        if self.input().is(Token::Hash) {
            let name = self.parse_private_name()?;
            if name.name == atom!("constructor") {
                self.emit_err(name.span, SyntaxError::PrivateConstructor);
            }
            Ok(Key::Private(name))
        } else {
            self.parse_prop_name().map(Key::Public)
        }
    }

    fn try_parse_flow_predicate(&mut self) -> PResult<()> {
        if !self.input().syntax().flow() || !self.input_mut().eat(Token::Percent) {
            return Ok(());
        }

        let is_checks = self.input().cur().is_word()
            && self.input().cur().take_word(&self.input) == atom!("checks");
        if !is_checks {
            unexpected!(self, "checks");
        }
        self.bump();

        if self.input_mut().eat(Token::LParen) {
            if !self.input().is(Token::RParen) {
                with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)?;
            }
            expect!(self, Token::RParen);
        }

        Ok(())
    }

    /// `parse_args` closure should not eat '(' or ')'.
    pub(crate) fn parse_fn_args_body<F>(
        &mut self,
        decorators: Vec<Decorator>,
        start: BytePos,
        parse_args: F,
        is_async: bool,
        is_generator: bool,
    ) -> PResult<Box<Function>>
    where
        F: FnOnce(&mut Self) -> PResult<Vec<Param>>,
    {
        trace_cur!(self, parse_fn_args_body);
        let f = |p: &mut Self| {
            let type_params = if p.syntax().typescript() {
                p.in_type(|p| {
                    trace_cur!(p, parse_fn_args_body__type_params);

                    Ok(
                        if p.input().is(Token::Lt) || p.input().is(Token::JSXTagStart) {
                            Some(p.parse_ts_type_params(false, true)?)
                        } else {
                            None
                        },
                    )
                })?
            } else {
                None
            };

            expect!(p, Token::LParen);

            let (this_param, params) = p.without_async_arrow_param_await_collection(|p| {
                p.do_inside_of_boundary_context(BoundaryContext::InParameters, |p| {
                    p.with_syntax_context(SyntaxContext::Parameters, |p| {
                        // FormalParameters use the function kind's derived arguments;
                        // their FormalParameter children inherit both parameters.
                        with_grammar_context!(p, [?Yield, ?Await], |p| {
                            let this_param = parse_ts_this_param(p)?;
                            parse_args(p).map(|params| (this_param, params))
                        })
                    })
                })
            })?;

            if p.syntax().flow() && !params.is_simple_parameter_list() {
                let mut seen = HashSet::with_capacity(params.len());
                for param in &params {
                    if let Pat::Ident(ident) = &param.pat {
                        if !seen.insert(ident.id.sym.clone()) {
                            p.emit_err(ident.id.span, SyntaxError::TS1003);
                        }
                    }
                }
            }

            expect!(p, Token::RParen);

            // typescript extension
            let return_type = if p.syntax().typescript() && p.input().is(Token::Colon) {
                p.parse_ts_type_or_type_predicate_ann(Token::Colon)
                    .map(Some)?
            } else {
                None
            };

            if p.is_flow_syntax() {
                p.try_parse_flow_predicate()?;
            }

            let body: Option<_> = p.parse_fn_block_body(
                FunctionKind::Function {
                    is_async,
                    is_generator,
                },
                params.is_simple_parameter_list(),
            )?;

            if p.syntax().flow() && body.is_none() && !p.type_ctx().contains(TypeContext::InDeclare)
            {
                p.emit_err(p.input().cur_span(), SyntaxError::TS1005);
            }

            if p.syntax().typescript() && body.is_none() {
                // Declare functions cannot have assignment pattern in parameters
                for param in &params {
                    // TODO: Search deeply for assignment pattern using a Visitor

                    let span = match &param.pat {
                        Pat::Assign(ref p) => Some(p.span()),
                        _ => None,
                    };

                    if let Some(span) = span {
                        p.emit_err(span, SyntaxError::TS2371)
                    }
                }
            }

            Ok(Box::new(Function {
                span: p.span(start),
                this_param,
                decorators,
                type_params,
                params,
                body,
                is_async,
                is_generator,
                return_type,
                ctxt: Default::default(),
            }))
        };

        // Ordinary functions and methods establish their own Await grammar
        // parameter, including their parameter lists, inside static blocks.
        self.do_outside_of_boundary_context(BoundaryContext::InStaticBlock, |p| {
            // Function, generator, async-function, and async-generator parameters.
            match (is_generator, is_async) {
                (false, false) => with_grammar_context!(p, [~Yield, ~Await], f),
                (true, false) => with_grammar_context!(p, [+Yield, ~Await], f),
                (false, true) => with_grammar_context!(p, [~Yield, +Await], f),
                (true, true) => with_grammar_context!(p, [+Yield, +Await], f),
            }
        })
    }

    pub(crate) fn parse_async_fn_expr(&mut self) -> PResult<Box<Expr>> {
        let start = self.cur_pos();
        expect!(self, Token::Async);
        self.parse_fn(None, Some(start), Vec::new())
    }

    /// Parse function expression
    pub(crate) fn parse_fn_expr(&mut self) -> PResult<Box<Expr>> {
        self.parse_fn(None, None, Vec::new())
    }

    pub(crate) fn parse_async_fn_decl(&mut self, decorators: Vec<Decorator>) -> PResult<Decl> {
        let start = self.cur_pos();
        expect!(self, Token::Async);
        self.parse_fn(None, Some(start), decorators)
    }

    pub(crate) fn parse_fn_decl(&mut self, decorators: Vec<Decorator>) -> PResult<Decl> {
        self.parse_fn(None, None, decorators)
    }

    pub(crate) fn parse_default_async_fn(
        &mut self,
        start: BytePos,
        decorators: Vec<Decorator>,
    ) -> PResult<ExportDefaultDecl> {
        let start_of_async = self.cur_pos();
        expect!(self, Token::Async);
        self.parse_fn(Some(start), Some(start_of_async), decorators)
    }

    pub(crate) fn parse_default_fn(
        &mut self,
        start: BytePos,
        decorators: Vec<Decorator>,
    ) -> PResult<ExportDefaultDecl> {
        self.parse_fn(Some(start), None, decorators)
    }

    fn parse_fn_inner(
        &mut self,
        _start_of_output_type: Option<BytePos>,
        start_of_async: Option<BytePos>,
        decorators: Vec<Decorator>,
        is_fn_expr: bool,
        is_ident_required: bool,
    ) -> PResult<(Option<Ident>, Box<Function>)> {
        let start = start_of_async.unwrap_or_else(|| self.cur_pos());
        self.assert_and_bump(Token::Function);
        let is_async = start_of_async.is_some();

        let is_generator = self.input_mut().eat(Token::Asterisk);

        let ident = if is_fn_expr {
            self.do_outside_of_boundary_context(
                BoundaryContext::AllowDirectSuper
                    | BoundaryContext::InClassField
                    | BoundaryContext::InStaticBlock,
                |p| {
                    // Expression names use the function kind's BindingIdentifier
                    // arguments; declaration names inherit the enclosing grammar.
                    // These names also lie outside the enclosing async arrow's
                    // parameter Await check, just like the function's parameters.
                    let parse_name = |p: &mut Self| {
                        p.without_async_arrow_param_await_collection(|p| {
                            p.parse_maybe_opt_function_ident(is_ident_required)
                        })
                    };
                    match (is_generator, is_async) {
                        (false, false) => with_grammar_context!(p, [~Yield, ~Await], parse_name),
                        (true, false) => with_grammar_context!(p, [+Yield, ~Await], parse_name),
                        (false, true) => with_grammar_context!(p, [~Yield, +Await], parse_name),
                        (true, true) => with_grammar_context!(p, [+Yield, +Await], parse_name),
                    }
                },
            )?
        } else {
            // function declaration does not change context for `BindingIdentifier`.
            self.do_outside_of_boundary_context(
                BoundaryContext::AllowDirectSuper.union(BoundaryContext::InClassField),
                |p| {
                    with_grammar_context!(p, [?Yield, ?Await], |p| {
                        p.parse_maybe_opt_function_ident(is_ident_required)
                    })
                },
            )?
        };

        self.do_outside_of_boundary_context(
            BoundaryContext::AllowDirectSuper | BoundaryContext::InClassField,
            |p| {
                p.do_outside_of_type_context(TypeContext::WillExpectColonForCond, |p| {
                    let f = p.parse_fn_args_body(
                        decorators,
                        start,
                        Self::parse_formal_params,
                        is_async,
                        is_generator,
                    )?;
                    if is_fn_expr && f.body.is_none() {
                        unexpected!(p, "{");
                    }
                    Ok((ident, f))
                })
            },
        )
    }

    fn parse_fn<T>(
        &mut self,
        start_of_output_type: Option<BytePos>,
        start_of_async: Option<BytePos>,
        decorators: Vec<Decorator>,
    ) -> PResult<T>
    where
        T: OutputType,
    {
        let start = start_of_async.unwrap_or_else(|| self.cur_pos());
        let (ident, f) = self.parse_fn_inner(
            start_of_output_type,
            start_of_async,
            decorators,
            T::is_fn_expr(),
            T::IS_IDENT_REQUIRED,
        )?;

        match T::finish_fn(self.span(start_of_output_type.unwrap_or(start)), ident, f) {
            Ok(v) => Ok(v),
            Err(kind) => syntax_error!(self, kind),
        }
    }

    pub(crate) fn parse_class_decl(
        &mut self,
        start: BytePos,
        class_start: BytePos,
        decorators: Vec<Decorator>,
        is_abstract: bool,
    ) -> PResult<Decl> {
        self.parse_class(start, class_start, decorators, is_abstract)
    }

    pub(crate) fn parse_class_expr(
        &mut self,
        start: BytePos,
        decorators: Vec<Decorator>,
    ) -> PResult<Box<Expr>> {
        self.parse_class(start, start, decorators, false)
    }

    pub(crate) fn parse_default_class(
        &mut self,
        start: BytePos,
        class_start: BytePos,
        decorators: Vec<Decorator>,
        is_abstract: bool,
    ) -> PResult<ExportDefaultDecl> {
        self.parse_class(start, class_start, decorators, is_abstract)
    }

    fn make_method<F>(
        &mut self,
        parse_args: F,
        MakeMethodArgs {
            start,
            accessibility,
            is_abstract,
            static_token,
            decorators,
            is_optional,
            is_override,
            key,
            kind,
            is_async,
            is_generator,
        }: MakeMethodArgs,
    ) -> PResult<ClassMember>
    where
        F: FnOnce(&mut Self) -> PResult<Vec<Param>>,
    {
        trace_cur!(self, make_method);

        let is_static = static_token.is_some();
        let function =
            self.do_inside_of_boundary_context(BoundaryContext::AllowDirectSuper, |p| {
                p.do_outside_of_boundary_context(BoundaryContext::InClassField, |p| {
                    p.parse_fn_args_body(decorators, start, parse_args, is_async, is_generator)
                })
            })?;

        if self.syntax().flow()
            && matches!(kind, MethodKind::Getter | MethodKind::Setter)
            && function.this_param.is_some()
        {
            self.emit_err(key.span(), SyntaxError::TS1003);
        }

        match kind {
            MethodKind::Getter | MethodKind::Setter
                if self.input().syntax().typescript()
                    && self.input().target() == EsVersion::Es3 =>
            {
                self.emit_err(key.span(), SyntaxError::TS1056);
            }
            _ => {}
        }

        match key {
            Key::Private(key) => {
                let span = self.span(start);
                if accessibility.is_some() {
                    self.emit_err(span.with_hi(key.span_hi()), SyntaxError::TS18010);
                }

                Ok(PrivateMethod {
                    span,

                    accessibility,
                    is_abstract,
                    is_optional,
                    is_override,

                    is_static,
                    key,
                    function,
                    kind,
                }
                .into())
            }
            Key::Public(key) => {
                let span = self.span(start);
                if is_abstract && function.body.is_some() {
                    self.emit_err(span, SyntaxError::TS1245)
                }
                Ok(ClassMethod {
                    span,

                    accessibility,
                    is_abstract,
                    is_optional,
                    is_override,

                    is_static,
                    key,
                    function,
                    kind,
                }
                .into())
            }
            #[cfg(swc_ast_unknown)]
            _ => unreachable!(),
        }
    }

    pub(super) fn parse_fn_block_or_expr_body(
        &mut self,
        kind: FunctionKind,
        is_simple_parameter_list: bool,
    ) -> PResult<Box<ArrowFunctionBody>> {
        self.parse_fn_body(
            kind,
            is_simple_parameter_list,
            |p, is_simple_parameter_list| {
                if p.input().is(Token::LBrace) {
                    p.parse_block(false)
                        .map(|block_stmt| {
                            if !is_simple_parameter_list {
                                if let Some(span) = has_use_strict(&block_stmt) {
                                    p.emit_err(span, SyntaxError::IllegalLanguageModeDirective);
                                }
                            }
                            ArrowFunctionBody::FunctionBody(function_body_from_block_stmt(
                                block_stmt,
                            ))
                        })
                        .map(Box::new)
                } else {
                    p.parse_assignment_expr()
                        .map(ArrowFunctionBody::Expr)
                        .map(Box::new)
                }
            },
        )
    }

    fn parse_fn_body<T>(
        &mut self,
        kind: FunctionKind,
        is_simple_parameter_list: bool,
        f: impl FnOnce(&mut Self, bool) -> PResult<T>,
    ) -> PResult<T> {
        let has_explicit_body = self.input().is(Token::LBrace);
        #[cfg(feature = "tsrx")]
        let has_explicit_body = has_explicit_body
            || self.syntax().tsrx()
                && self.input().is(Token::At)
                && peek!(self).is_some_and(|token| token == Token::LBrace);
        if self.type_ctx().contains(TypeContext::InDeclare)
            && self.syntax().typescript()
            && has_explicit_body
            && (!self.syntax().flow() || !self.type_ctx().contains(TypeContext::TsModuleBlock))
        {
            //            self.emit_err(
            //                self.ctx().span_of_fn_name.expect("we are not in function"),
            //                SyntaxError::TS1183,
            //            );
            self.emit_err(self.input().cur_span(), SyntaxError::TS1183);
        }

        let f_with_function_scope = |p: &mut Self| {
            let f_with_new_state = |p: &mut Self| {
                let mut p = p.with_state(State::default());
                f(&mut p, is_simple_parameter_list)
            };

            if kind.is_arrow()
                && !p
                    .boundary_ctx()
                    .contains(BoundaryContext::InsideNonArrowFunctionScope)
            {
                p.do_outside_of_boundary_context(
                    BoundaryContext::InsideNonArrowFunctionScope,
                    f_with_new_state,
                )
            } else {
                p.do_inside_of_boundary_context(
                    BoundaryContext::InsideNonArrowFunctionScope,
                    f_with_new_state,
                )
            }
        };

        with_grammar_context!(self, [?Yield, ?Await, +Return], |p| {
            p.with_syntax_context(SyntaxContext::FunctionBody, |p| {
                p.do_outside_of_boundary_context(
                    BoundaryContext::InStaticBlock | BoundaryContext::TopLevel,
                    |p| {
                        p.do_outside_of_statement_context(
                            StatementContext::IsBreakAllowed | StatementContext::IsContinueAllowed,
                            |p| {
                                // FunctionBody arguments selected by the enclosing production.
                                match (kind.is_generator(), kind.is_async()) {
                                    (false, false) => with_grammar_context!(
                                        p, [~Yield, ~Await], f_with_function_scope
                                    ),
                                    (true, false) => with_grammar_context!(
                                        p, [+Yield, ~Await], f_with_function_scope
                                    ),
                                    (false, true) => with_grammar_context!(
                                        p, [~Yield, +Await], f_with_function_scope
                                    ),
                                    (true, true) => with_grammar_context!(
                                        p, [+Yield, +Await], f_with_function_scope
                                    ),
                                }
                            },
                        )
                    },
                )
            })
        })
    }

    pub(super) fn parse_fn_block_body(
        &mut self,
        kind: FunctionKind,
        is_simple_parameter_list: bool,
    ) -> PResult<Option<FunctionBody>> {
        self.parse_fn_body(
            kind,
            is_simple_parameter_list,
            |p, is_simple_parameter_list| {
                #[cfg(feature = "tsrx")]
                if p.input().syntax().tsrx()
                    && p.input().is(Token::At)
                    && peek!(p).is_some_and(|token| token == Token::LBrace)
                {
                    return p
                        .parse_tsrx_function_body(is_simple_parameter_list)
                        .map(Some);
                }

                // allow omitting body and allow placing `{` on next line
                let has_explicit_body_terminator = p.input_mut().eat(Token::Semi)
                    || (p.syntax().flow()
                        && p.type_ctx().contains(TypeContext::InDeclare)
                        && p.boundary_ctx().contains(BoundaryContext::InClass)
                        && p.input_mut().eat(Token::Comma));
                let omitted_body_terminator = has_explicit_body_terminator
                    || p.input().is(Token::RBrace)
                    || p.input().had_line_break_before_cur()
                    || p.input().is(Token::Eof);
                if p.input().syntax().typescript()
                    && omitted_body_terminator
                    // Keep `function f()\n{}` as a body, but treat `function f(); {}` as two
                    // separate statements in TS fixtures.
                    && (has_explicit_body_terminator || !p.input().is(Token::LBrace))
                {
                    return Ok(None);
                }
                with_grammar_context!(p, [+In, ?Yield, ?Await, ?Return], |p| p.parse_block(true))
                    .map(|block_stmt| {
                        if !is_simple_parameter_list {
                            if let Some(span) = has_use_strict(&block_stmt) {
                                p.emit_err(span, SyntaxError::IllegalLanguageModeDirective);
                            }
                        }
                        Some(function_body_from_block_stmt(block_stmt))
                    })
            },
        )
    }

    fn make_property(
        &mut self,
        start: BytePos,
        decorators: Vec<Decorator>,
        accessibility: Option<Accessibility>,
        key: Key,
        is_static: bool,
        accessor_token: Option<Span>,
        is_optional: bool,
        readonly: bool,
        declare: bool,
        is_abstract: bool,
        is_override: bool,
    ) -> PResult<ClassMember> {
        if is_constructor(&key) {
            syntax_error!(self, key.span(), SyntaxError::PropertyNamedConstructor);
        }
        if self.syntax().typescript() {
            if let Some(span) = accessor_token {
                if declare {
                    self.emit_err(
                        span,
                        SyntaxError::TS1243(atom!("accessor"), atom!("declare")),
                    );
                } else if readonly {
                    self.emit_err(
                        span,
                        SyntaxError::TS1243(atom!("accessor"), atom!("readonly")),
                    );
                }
            }
        }
        if key.is_private() {
            if declare && !self.syntax().flow() {
                self.emit_err(
                    key.span(),
                    SyntaxError::PrivateNameModifier(atom!("declare")),
                )
            }
            if is_abstract {
                self.emit_err(
                    key.span(),
                    SyntaxError::PrivateNameModifier(atom!("abstract")),
                )
            }
        }
        let definite =
            self.input().syntax().typescript() && !is_optional && self.input_mut().eat(Token::Bang);

        let type_ann = self.try_parse_ts_type_ann()?;

        self.do_inside_of_boundary_context(BoundaryContext::InClassField, |p| {
            with_grammar_context!(p, [+In, ?Yield, ?Await], |p| {
                // Instance field initializers do not inherit a static block's Await
                // restriction. All fields clear the Program probe's async context.
                let reset_context = if is_static {
                    BoundaryContext::empty()
                } else {
                    BoundaryContext::InStaticBlock
                };
                let value = p.without_async_arrow_param_await_collection(|p| {
                    // FieldDefinition still passes the enclosing Yield/Await flags in
                    // the specification. Follow V8, SpiderMonkey, and fixed JSC instead:
                    // an initializer has its own non-generator, non-async function
                    // boundary. Computed names were parsed before this boundary.
                    // The normative grammar is disputed; do not treat this reset as
                    // an unambiguous specification requirement.
                    // https://tc39.es/ecma262/#prod-FieldDefinition
                    // https://github.com/tc39/ecma262/issues/2437
                    // https://github.com/tc39/ecma262/issues/3333
                    with_grammar_context!(p, [+In, ~Yield, ~Await], |p| {
                        p.do_outside_of_boundary_context(reset_context, |p| {
                            p.with_syntax_context(SyntaxContext::Nested, |p| {
                                if p.input().is(Token::Eq) {
                                    p.assert_and_bump(Token::Eq);
                                    p.parse_assignment_expr().map(Some)
                                } else {
                                    Ok(None)
                                }
                            })
                        })
                    })
                })?;

                // Definite assertions forbid initializers even outside ambient declarations.
                if definite && value.is_some() {
                    p.emit_err(p.span(start), SyntaxError::TS1263);
                }

                if declare && value.is_some() {
                    let allowed = p.syntax().typescript()
                        && readonly
                        && type_ann.is_none()
                        && value.as_deref().is_some_and(is_ts_ambient_initializer);
                    if !allowed {
                        p.emit_err(p.span(start), SyntaxError::TS1183);
                    }
                }

                if p.syntax().flow()
                    && p.type_ctx().contains(TypeContext::InDeclare)
                    && type_ann.is_none()
                {
                    p.emit_err(p.span(start), SyntaxError::TS1003);
                }

                if p.syntax().flow() && is_optional {
                    p.emit_err(p.span(start), SyntaxError::TS1003);
                }

                let implicit_flow_separator = p.syntax().flow()
                    && type_ann.is_some()
                    && value.is_none()
                    && p.input().cur().is_word();
                let had_explicit_separator =
                    p.input().is(Token::Semi) || (p.syntax().flow() && p.input().is(Token::Comma));
                let ate_semi =
                    p.eat_general_semi() || (p.syntax().flow() && p.input_mut().eat(Token::Comma));
                if !ate_semi && !implicit_flow_separator {
                    p.emit_err(p.input().cur_span(), SyntaxError::TS1005);
                }
                if p.syntax().flow()
                    && !had_explicit_separator
                    && type_ann.is_some()
                    && value.is_none()
                    && p.input().had_line_break_before_cur()
                    && p.input().is(Token::LBracket)
                {
                    // `foo: T` followed by a computed key on the next line is only
                    // ambiguous when the separator came from ASI. An explicit `;`
                    // or Flow `,` should keep the next computed field valid.
                    p.emit_err(p.input().cur_span(), SyntaxError::TS1005);
                }

                // Check both ordinary properties and auto-accessors before constructing the
                // AST.
                if is_abstract && value.is_some() {
                    p.emit_err(p.span(start), SyntaxError::TS1267);
                }

                if accessor_token.is_some() {
                    return Ok(ClassMember::AutoAccessor(AutoAccessor {
                        span: p.span(start),
                        key,
                        value,
                        type_ann,
                        is_static,
                        decorators,
                        accessibility,
                        is_abstract,
                        is_override,
                        definite,
                    }));
                }

                Ok(match key {
                    Key::Private(key) => {
                        let span = p.span(start);
                        if accessibility.is_some() {
                            p.emit_err(span.with_hi(key.span_hi()), SyntaxError::TS18010);
                        }

                        PrivateProp {
                            span: p.span(start),
                            key,
                            value,
                            is_static,
                            decorators,
                            accessibility,
                            is_optional,
                            is_override,
                            readonly,
                            type_ann,
                            definite,
                            ctxt: Default::default(),
                        }
                        .into()
                    }
                    Key::Public(key) => {
                        let span = p.span(start);
                        ClassProp {
                            span,
                            key,
                            value,
                            is_static,
                            decorators,
                            accessibility,
                            is_abstract,
                            is_optional,
                            is_override,
                            readonly,
                            declare,
                            definite,
                            type_ann,
                        }
                        .into()
                    }
                    #[cfg(swc_ast_unknown)]
                    _ => unreachable!(),
                })
            })
        })
    }

    fn parse_static_block(&mut self, start: BytePos) -> PResult<ClassMember> {
        let body = self.do_inside_of_boundary_context(
            BoundaryContext::InStaticBlock | BoundaryContext::InClassField,
            |p| {
                p.do_inside_of_statement_context(StatementContext::AllowUsingDecl, |p| {
                    // Static blocks have StatementList[~Yield, +Await, ~Return].
                    // Await is recognized, but rejected by the static-block early error.
                    // https://tc39.es/ecma262/#prod-ClassStaticBlockStatementList
                    with_grammar_context!(p, [+In, ~Yield, +Await, ~Return], |p| {
                        p.with_syntax_context(SyntaxContext::Nested, |p| {
                            p.parse_block(false)
                        })
                    })
                })
            },
        )?;

        let span = self.span(start);
        Ok(StaticBlock { span, body }.into())
    }

    fn parse_class_member_with_is_static(
        &mut self,
        has_super_class: bool,
        start: BytePos,
        declare_token: Option<Span>,
        accessibility: Option<Accessibility>,
        static_token: Option<Span>,
        accessor_token: Option<Span>,
        decorators: Vec<Decorator>,
    ) -> PResult<ClassMember> {
        let mut is_static = static_token.is_some();

        let mut is_abstract = false;
        let mut is_override = false;
        let mut readonly = None;
        let mut modifier_span = None;
        let declare = declare_token.is_some();
        while let Some(modifier) = if self.input().syntax().typescript() {
            self.parse_ts_modifier(
                &[
                    Token::Abstract,
                    Token::Readonly,
                    Token::Override,
                    Token::Static,
                ],
                true,
            )?
        } else {
            None
        } {
            modifier_span = Some(self.input().prev_span());
            match modifier {
                Token::Abstract => {
                    if is_abstract {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1030(atom!("abstract")),
                        );
                    } else if is_override {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1029(atom!("abstract"), atom!("override")),
                        );
                    }
                    is_abstract = true;
                }
                Token::Override => {
                    if is_override {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1030(atom!("override")),
                        );
                    } else if readonly.is_some() {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1029(atom!("override"), atom!("readonly")),
                        );
                    } else if declare {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1243(atom!("override"), atom!("declare")),
                        );
                    } else if !has_super_class {
                        self.emit_err(self.input().prev_span(), SyntaxError::TS4112);
                    }
                    is_override = true;
                }
                Token::Readonly => {
                    let readonly_span = self.input().prev_span();
                    if readonly.is_some() {
                        self.emit_err(readonly_span, SyntaxError::TS1030(atom!("readonly")));
                    } else {
                        readonly = Some(readonly_span);
                    }
                }
                Token::Static => {
                    if is_override {
                        self.emit_err(
                            self.input().prev_span(),
                            SyntaxError::TS1029(atom!("static"), atom!("override")),
                        );
                    }

                    is_static = true;
                }
                _ => {}
            }
        }

        let accessor_token = accessor_token.or_else(|| {
            if self.syntax().auto_accessors() && readonly.is_none() {
                let start = self.cur_pos();
                if !peek!(self).is_some_and(|cur| cur == Token::LParen)
                    && self.input_mut().eat(Token::Accessor)
                {
                    Some(self.span(start))
                } else {
                    None
                }
            } else {
                None
            }
        });

        if is_static && self.input().is(Token::LBrace) {
            if let Some(span) = declare_token {
                self.emit_err(span, SyntaxError::TS1184);
            }
            if accessibility.is_some() {
                self.emit_err(self.input().cur_span(), SyntaxError::TS1184);
            }
            return self.parse_static_block(start);
        }
        if self.input().is(Token::Static)
            && !self.input().has_escaped_keyword()
            && peek!(self).is_some_and(|cur| cur == Token::LBrace)
        {
            // For "readonly", "abstract" and "override"
            if let Some(span) = modifier_span {
                self.emit_err(span, SyntaxError::TS1184);
            }
            if let Some(span) = static_token {
                self.emit_err(span, SyntaxError::TS1184);
            }
            self.bump(); // consume "static"
            return self.parse_static_block(start);
        }

        if self.input().syntax().typescript()
            && !is_abstract
            && !is_override
            && accessibility.is_none()
        {
            let idx = self.try_parse_ts_index_signature(start, readonly.is_some(), is_static)?;
            if let Some(idx) = idx {
                return Ok(idx.into());
            }
        }

        let mut flow_variance_span = None;
        let mut flow_variance_readonly = false;
        let mut flow_proto_modifier = false;
        if self.input().syntax().flow()
            && self.input().cur().is_word()
            && self.input().cur().take_word(&self.input) == atom!("proto")
            && peek!(self)
                .is_some_and(|peek| !matches!(peek, Token::Colon | Token::LParen | Token::Eq))
        {
            self.bump();
            flow_proto_modifier = true;
        }
        if self.input().syntax().flow() {
            let variance_start = self.cur_pos();
            if self.input_mut().eat(Token::Plus) {
                flow_variance_span = Some(self.span(variance_start));
                flow_variance_readonly = true;
            } else if self.input_mut().eat(Token::Minus) {
                flow_variance_span = Some(self.span(variance_start));
            }
        }

        // Static methods named `constructor` are ordinary methods in JavaScript
        // and Flow. Preserve TypeScript's constructor classification so invalid
        // constructor modifiers still produce the existing diagnostics.
        let can_be_constructor =
            static_token.is_none() || (self.syntax().typescript() && !self.syntax().flow());

        if self.input_mut().eat(Token::Asterisk) {
            // generator method
            let key = self.parse_class_prop_name()?;
            // TypeScript permits the same optional marker on generator methods.
            let is_optional =
                self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
            if let Some(variance_span) = flow_variance_span {
                self.emit_err(variance_span, SyntaxError::TS1184);
            }
            if readonly.is_some() {
                self.emit_err(self.span(start), SyntaxError::ReadOnlyMethod);
            }
            if can_be_constructor && is_constructor(&key) {
                self.emit_err(self.span(start), SyntaxError::GeneratorConstructor);
            }

            return self.make_method(
                Self::parse_unique_formal_params,
                MakeMethodArgs {
                    start,
                    decorators,
                    is_async: false,
                    is_generator: true,
                    accessibility,
                    is_abstract,
                    is_override,
                    is_optional,
                    static_token,
                    key,
                    kind: MethodKind::Method,
                },
            );
        }

        trace_cur!(self, parse_class_member_with_is_static__normal_class_member);
        let key_token = self.input.cur();
        let key = if readonly.is_some() && matches!(key_token, Token::Bang | Token::Colon) {
            Key::Public(PropName::Ident(IdentName::new(
                atom!("readonly"),
                readonly.unwrap(),
            )))
        } else {
            self.parse_class_prop_name()?
        };
        let is_optional =
            self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);

        if flow_proto_modifier && is_static {
            self.emit_err(self.span(start), SyntaxError::TS1003);
        }
        if self.syntax().flow() && is_static && is_prototype(&key) {
            self.emit_err(key.span(), SyntaxError::TS1003);
        }

        if self.is_class_method() {
            // handle a(){} / get(){} / set(){} / async(){}

            trace_cur!(self, parse_class_member_with_is_static__normal_class_method);

            if let Some(token) = declare_token {
                self.emit_err(token, SyntaxError::TS1031)
            }

            if let Some(variance_span) = flow_variance_span {
                self.emit_err(variance_span, SyntaxError::TS1184);
            }
            if readonly.is_some() {
                syntax_error!(self, self.span(start), SyntaxError::ReadOnlyMethod);
            }
            if flow_proto_modifier {
                self.emit_err(self.span(start), SyntaxError::TS1003);
            }
            if matches!(key_token, Token::Get | Token::Set) && self.input().is(Token::Lt) {
                let accessor_as_ident = match key_token {
                    Token::Get => public_key_is(&key, "get"),
                    Token::Set => public_key_is(&key, "set"),
                    _ => false,
                };
                if !accessor_as_ident {
                    self.emit_err(self.input().cur_span(), SyntaxError::TS1003);
                }
            }
            let is_constructor = can_be_constructor && is_constructor(&key);

            if is_constructor {
                if self.syntax().typescript() && is_override {
                    self.emit_err(self.span(start), SyntaxError::TS1089(atom!("override")));
                }

                if self.syntax().typescript() && self.input().is(Token::Lt) {
                    let start = self.cur_pos();
                    if peek!(self).is_some_and(|cur| cur == Token::Lt) {
                        self.assert_and_bump(Token::Lt);
                        let start2 = self.cur_pos();
                        self.assert_and_bump(Token::Gt);

                        self.emit_err(self.span(start), SyntaxError::TS1098);
                        self.emit_err(self.span(start2), SyntaxError::TS1092);
                    } else {
                        let type_params = self.try_parse_ts_type_params(false, true)?;

                        if let Some(type_params) = type_params {
                            for param in type_params.params {
                                self.emit_err(param.span(), SyntaxError::TS1092);
                            }
                        }
                    }
                }

                let prev_allow_super_call = self.allow_super_call();
                self.set_allow_super_call(true);
                // Ordinary methods, including constructors, use [~Yield, ~Await] for
                // UniqueFormalParameters and FunctionBody. Also clear enclosing field
                // and static-block contexts so their await/arguments restrictions do
                // not leak into constructor parameters or the body.
                let ctor_sig_and_body = self.do_outside_of_boundary_context(
                    BoundaryContext::InClassField | BoundaryContext::InStaticBlock,
                    |p| {
                        with_grammar_context!(p, [~Yield, ~Await], |p| {
                            expect!(p, Token::LParen);
                            let params = p.without_async_arrow_param_await_collection(
                                Self::parse_constructor_params,
                            )?;
                            expect!(p, Token::RParen);

                            if p.syntax().flow() {
                                for param in &params {
                                    if let ParamOrTsParamProp::Param(Param {
                                        pat: Pat::Ident(ident),
                                        ..
                                    }) = param
                                    {
                                        if ident.id.sym == *"this" {
                                            p.emit_err(ident.id.span, SyntaxError::TS1003);
                                        }
                                    }
                                }
                            }

                            if p.syntax().typescript() && p.input().is(Token::Colon) {
                                let start = p.cur_pos();
                                let type_ann = p.parse_ts_type_ann(true, start)?;

                                // Flow allows return type annotations on constructors.
                                if !p.syntax().flow() {
                                    p.emit_err(type_ann.type_ann.span(), SyntaxError::TS1093);
                                }
                            }

                            let body = p.parse_fn_block_body(
                                FunctionKind::Function {
                                    is_async: false,
                                    is_generator: false,
                                },
                                params.is_simple_parameter_list(),
                            )?;

                            Ok((params, body))
                        })
                    },
                );
                self.set_allow_super_call(prev_allow_super_call);
                let (params, body) = ctor_sig_and_body?;

                if body.is_none() {
                    for param in params.iter() {
                        if param.is_ts_param_prop() {
                            self.emit_err(param.span(), SyntaxError::TS2369)
                        }
                    }
                }

                if self.syntax().typescript() && body.is_none() {
                    // Declare constructors cannot have assignment pattern in parameters
                    for param in &params {
                        // TODO: Search deeply for assignment pattern using a Visitor

                        let span = match *param {
                            ParamOrTsParamProp::Param(ref param) => match param.pat {
                                Pat::Assign(ref p) => Some(p.span()),
                                _ => None,
                            },
                            ParamOrTsParamProp::TsParamProp(TsParamProp {
                                param: TsParamPropParam::Assign(ref p),
                                ..
                            }) => Some(p.span()),
                            _ => None,
                        };

                        if let Some(span) = span {
                            self.emit_err(span, SyntaxError::TS2371)
                        }
                    }
                }

                if let Some(static_token) = static_token {
                    self.emit_err(static_token, SyntaxError::TS1089(atom!("static")))
                }

                if let Some(span) = modifier_span {
                    if is_abstract {
                        self.emit_err(span, SyntaxError::TS1242);
                    }
                }

                return Ok(ClassMember::Constructor(Constructor {
                    span: self.span(start),
                    accessibility,
                    key: match key {
                        Key::Public(key) => key,
                        _ => unreachable!("is_constructor() returns false for PrivateName"),
                    },
                    is_optional,
                    params,
                    body,
                    ..Default::default()
                }));
            } else {
                return self.make_method(
                    Self::parse_formal_params,
                    MakeMethodArgs {
                        start,
                        is_optional,
                        accessibility,
                        decorators,
                        is_abstract,
                        is_override,
                        static_token,
                        kind: MethodKind::Method,
                        key,
                        is_async: false,
                        is_generator: false,
                    },
                );
            }
        }

        let is_next_line_generator =
            self.input_mut().had_line_break_before_cur() && self.input().is(Token::Asterisk);
        let getter_or_setter_ident = match key_token {
            // `get?` and `set?` are optional fields at this point.
            // `get\n*` is an uninitialized property named 'get' followed by a generator.
            Token::Get | Token::Set if !is_optional => {
                !self.is_class_property(/* asi */ false) && !is_next_line_generator
            }
            _ => false,
        };

        if !getter_or_setter_ident && self.is_class_property(/* asi */ true) {
            if flow_proto_modifier
                && matches!(&key, Key::Private(..) | Key::Public(PropName::Computed(..)))
            {
                self.emit_err(key.span(), SyntaxError::TS1003);
            }

            return self.make_property(
                start,
                decorators,
                accessibility,
                key,
                is_static,
                accessor_token,
                is_optional,
                readonly.is_some() || flow_variance_readonly,
                declare,
                is_abstract,
                is_override,
            );
        }

        if key_token == Token::Async && !self.input_mut().had_line_break_before_cur() {
            // handle async foo(){}

            if let Some(variance_span) = flow_variance_span {
                self.emit_err(variance_span, SyntaxError::TS1184);
            }
            if let Some(token) = declare_token {
                self.emit_err(token, SyntaxError::TS1031);
            }
            if self.input().syntax().typescript()
                && self.parse_ts_modifier(&[Token::Override], false)?.is_some()
            {
                is_override = true;
                self.emit_err(
                    self.input().prev_span(),
                    SyntaxError::TS1029(atom!("override"), atom!("async")),
                );
            }

            let is_generator = self.input_mut().eat(Token::Asterisk);
            let key = self.parse_class_prop_name()?;
            if can_be_constructor && is_constructor(&key) {
                syntax_error!(self, key.span(), SyntaxError::AsyncConstructor)
            }
            if readonly.is_some() {
                syntax_error!(self, self.span(start), SyntaxError::ReadOnlyMethod);
            }

            // handle async foo(){}
            let is_optional = is_optional
                || self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
            return self.make_method(
                Self::parse_unique_formal_params,
                MakeMethodArgs {
                    start,
                    static_token,
                    key,
                    is_abstract,
                    accessibility,
                    is_optional,
                    is_override,
                    decorators,
                    kind: MethodKind::Method,
                    is_async: true,
                    is_generator,
                },
            );
        }

        if getter_or_setter_ident {
            let key_span = key.span();
            if let Some(variance_span) = flow_variance_span {
                self.emit_err(variance_span, SyntaxError::TS1184);
            }

            // handle get foo(){} / set foo(v){}
            let key = self.parse_class_prop_name()?;

            if readonly.is_some() {
                self.emit_err(key_span, SyntaxError::GetterSetterCannotBeReadonly);
            }

            if self.syntax().flow() && is_static && is_prototype(&key) {
                self.emit_err(key_span, SyntaxError::TS1003);
            }

            if can_be_constructor && is_constructor(&key) {
                self.emit_err(key_span, SyntaxError::ConstructorAccessor);
            }

            if self.input().is(Token::Lt) {
                self.emit_err(self.input().cur_span(), SyntaxError::TS1003);
            }

            return match key_token {
                Token::Get => self.make_method(
                    |p| {
                        let params = p.parse_formal_params()?;

                        if p.syntax().flow() && params.iter().any(|p| !is_not_this(p)) {
                            p.emit_err(key_span, SyntaxError::TS1003);
                        }

                        if !params.is_empty() {
                            p.emit_err(key_span, SyntaxError::GetterParam);
                        }

                        Ok(params)
                    },
                    MakeMethodArgs {
                        decorators,
                        start,
                        is_abstract,
                        is_async: false,
                        is_generator: false,
                        is_optional,
                        is_override,
                        accessibility,
                        static_token,
                        key,
                        kind: MethodKind::Getter,
                    },
                ),
                Token::Set => self.make_method(
                    |p| {
                        let params = p.parse_formal_params()?;

                        if p.syntax().flow() && params.iter().any(|p| !is_not_this(p)) {
                            p.emit_err(key_span, SyntaxError::TS1003);
                        }

                        if params.len() != 1 {
                            p.emit_err(key_span, SyntaxError::SetterParam);
                        }

                        if let Some(param) = params.first() {
                            if let Pat::Rest(..) = param.pat {
                                p.emit_err(param.pat.span(), SyntaxError::RestPatInSetter);
                            }
                        }

                        Ok(params)
                    },
                    MakeMethodArgs {
                        decorators,
                        start,
                        is_optional,
                        is_abstract,
                        is_override,
                        is_async: false,
                        is_generator: false,
                        accessibility,
                        static_token,
                        key,
                        kind: MethodKind::Setter,
                    },
                ),
                _ => unreachable!(),
            };
        }

        unexpected!(self, "* for generator, private key, identifier or async")
    }

    fn parse_class_member(&mut self, has_super_class: bool) -> PResult<ClassMember> {
        trace_cur!(self, parse_class_member);

        let start = self.cur_pos();
        let decorators = self.parse_decorators(false)?;
        let declare = self.syntax().typescript() && self.input_mut().eat(Token::Declare);
        let accessibility = if self.input().syntax().typescript() {
            self.parse_access_modifier()?
        } else {
            None
        };
        // Allow `private declare`.
        let declare = declare || self.syntax().typescript() && self.input_mut().eat(Token::Declare);

        let declare_token = if declare {
            // Handle declare(){}
            if self.is_class_method() {
                let key = Key::Public(PropName::Ident(IdentName::new(
                    atom!("declare"),
                    self.span(start),
                )));
                let is_optional =
                    self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
                return self.make_method(
                    Self::parse_unique_formal_params,
                    MakeMethodArgs {
                        start,
                        accessibility,
                        decorators,
                        is_abstract: false,
                        is_optional,
                        is_override: false,
                        is_async: false,
                        is_generator: false,
                        static_token: None,
                        key,
                        kind: MethodKind::Method,
                    },
                );
            } else if self.is_class_property(/* asi */ true)
                || (self.syntax().typescript() && self.input().is(Token::QuestionMark))
            {
                // Property named `declare`

                let key = Key::Public(PropName::Ident(IdentName::new(
                    atom!("declare"),
                    self.span(start),
                )));
                let is_optional =
                    self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
                return self.make_property(
                    start,
                    decorators,
                    accessibility,
                    key,
                    false,
                    None,
                    is_optional,
                    false,
                    false,
                    false,
                    false,
                );
            } else {
                Some(self.span(start))
            }
        } else {
            None
        };

        let static_token = {
            let start = self.cur_pos();
            // Escaped keywords are property names, never modifiers. In particular,
            // an escaped `static` followed by a line break must allow field ASI.
            if self.input().is(Token::Static) && !self.input().has_escaped_keyword() {
                self.bump();
                let span = self.span(start);
                Some(span)
            } else {
                None
            }
        };

        let accessor_token = if self.syntax().auto_accessors() {
            let start = self.cur_pos();
            if self.input_mut().eat(Token::Accessor) {
                Some(self.span(start))
            } else {
                None
            }
        } else {
            None
        };

        if let Some(accessor_token) = accessor_token {
            // Handle accessor(){}
            if self.is_class_method() {
                let key = Key::Public(PropName::Ident(IdentName::new(
                    atom!("accessor"),
                    accessor_token,
                )));
                let is_optional =
                    self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
                return self.make_method(
                    Self::parse_unique_formal_params,
                    MakeMethodArgs {
                        start,
                        accessibility,
                        decorators,
                        is_abstract: false,
                        is_optional,
                        is_override: false,
                        is_async: false,
                        is_generator: false,
                        static_token,
                        key,
                        kind: MethodKind::Method,
                    },
                );
            } else if self.is_class_property(/* asi */ true)
                || (self.syntax().typescript() && self.input().is(Token::QuestionMark))
            {
                // Property named `accessor`

                let key = Key::Public(PropName::Ident(IdentName::new(
                    atom!("accessor"),
                    accessor_token,
                )));
                let is_optional =
                    self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
                let is_static = static_token.is_some();
                return self.make_property(
                    start,
                    decorators,
                    accessibility,
                    key,
                    is_static,
                    None,
                    is_optional,
                    false,
                    declare,
                    false,
                    false,
                );
            }
        }

        if let Some(static_token) = static_token {
            // Handle static(){}
            if self.is_class_method() {
                let key = Key::Public(PropName::Ident(IdentName::new(
                    atom!("static"),
                    static_token,
                )));
                let is_optional =
                    self.input().syntax().typescript() && self.input_mut().eat(Token::QuestionMark);
                return self.make_method(
                    Self::parse_unique_formal_params,
                    MakeMethodArgs {
                        start,
                        accessibility,
                        decorators,
                        is_abstract: false,
                        is_optional,
                        is_override: false,
                        is_async: false,
                        is_generator: false,
                        static_token: None,
                        key,
                        kind: MethodKind::Method,
                    },
                );
            } else if self.is_class_property(/* asi */ false)
                || (self.syntax().typescript() && self.input().is(Token::QuestionMark))
            {
                // Property named `static`

                // Avoid to parse
                //   static
                //   {}
                let is_parsing_static_blocks = self.input().is(Token::LBrace);
                if !is_parsing_static_blocks {
                    let key = Key::Public(PropName::Ident(IdentName::new(
                        atom!("static"),
                        static_token,
                    )));
                    let is_optional = self.input().syntax().typescript()
                        && self.input_mut().eat(Token::QuestionMark);
                    return self.make_property(
                        start,
                        decorators,
                        accessibility,
                        key,
                        false,
                        accessor_token,
                        is_optional,
                        false,
                        declare,
                        false,
                        false,
                    );
                }
            }
        }

        self.parse_class_member_with_is_static(
            has_super_class,
            start,
            declare_token,
            accessibility,
            static_token,
            accessor_token,
            decorators,
        )
    }

    fn parse_class_body(&mut self, has_super_class: bool) -> PResult<Vec<ClassMember>> {
        let mut elems = Vec::with_capacity(32);
        let mut has_constructor_with_body = false;
        while !self.input().is(Token::RBrace) {
            if self.input_mut().eat(Token::Semi) {
                let span = self.input().prev_span();
                debug_assert!(span.lo <= span.hi);
                elems.push(ClassMember::Empty(EmptyStmt { span }));
                continue;
            }
            let elem = self
                .do_inside_of_boundary_context(BoundaryContext::AllowDirectSuper, |p| {
                    p.parse_class_member(has_super_class)
                })?;

            if !self.type_ctx().contains(TypeContext::InDeclare) {
                if let ClassMember::Constructor(Constructor {
                    body: Some(..),
                    span,
                    ..
                }) = elem
                {
                    if has_constructor_with_body {
                        self.emit_err(span, SyntaxError::DuplicateConstructor);
                    }
                    has_constructor_with_body = true;
                }
            }
            elems.push(elem);

            // Flow `declare class` allows `,` as a class member separator.
            if self.syntax().flow() && self.type_ctx().contains(TypeContext::InDeclare) {
                self.input_mut().eat(Token::Comma);
            }
        }

        if self.syntax().flow() {
            #[derive(Default)]
            struct PrivateMemberState {
                has_value_like: bool,
                has_getter: bool,
                has_setter: bool,
            }

            let mut private_members: HashMap<Atom, PrivateMemberState> = HashMap::new();

            for elem in &elems {
                match elem {
                    ClassMember::PrivateProp(PrivateProp { key, .. }) => {
                        let state = private_members.entry(key.name.clone()).or_default();
                        if state.has_value_like || state.has_getter || state.has_setter {
                            self.emit_err(key.span, SyntaxError::TS1003);
                        }
                        state.has_value_like = true;
                    }
                    ClassMember::PrivateMethod(PrivateMethod { key, kind, .. }) => {
                        let state = private_members.entry(key.name.clone()).or_default();
                        match kind {
                            MethodKind::Getter => {
                                if state.has_value_like || state.has_getter {
                                    self.emit_err(key.span, SyntaxError::TS1003);
                                }
                                state.has_getter = true;
                            }
                            MethodKind::Setter => {
                                if state.has_value_like || state.has_setter {
                                    self.emit_err(key.span, SyntaxError::TS1003);
                                }
                                state.has_setter = true;
                            }
                            _ => {
                                if state.has_value_like || state.has_getter || state.has_setter {
                                    self.emit_err(key.span, SyntaxError::TS1003);
                                }
                                state.has_value_like = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }

        Ok(elems)
    }

    fn parse_class<T>(
        &mut self,
        start: BytePos,
        class_start: BytePos,
        decorators: Vec<Decorator>,
        is_abstract: bool,
    ) -> PResult<T>
    where
        T: OutputType,
    {
        let (ident, mut class) = self
            .do_inside_of_boundary_context(BoundaryContext::InClass, |p| {
                p.parse_class_inner(start, class_start, decorators, T::IS_IDENT_REQUIRED)
            })?;

        if is_abstract {
            class.is_abstract = true
        } else {
            for member in class.body.iter() {
                match member {
                    ClassMember::ClassProp(ClassProp {
                        is_abstract: true,
                        span,
                        ..
                    })
                    | ClassMember::Method(ClassMethod {
                        span,
                        is_abstract: true,
                        ..
                    }) => self.emit_err(*span, SyntaxError::TS1244),
                    _ => (),
                }
            }
        }

        match T::finish_class(self.span(start), ident, class) {
            Ok(v) => Ok(v),
            Err(kind) => syntax_error!(self, kind),
        }
    }

    /// Not generic
    fn parse_class_inner(
        &mut self,
        _start: BytePos,
        class_start: BytePos,
        decorators: Vec<Decorator>,
        is_ident_required: bool,
    ) -> PResult<(Option<Ident>, Box<Class>)> {
        let outer_ctx = self.ctx();
        self.strict_mode(|p| {
            expect!(p, Token::Class);

            let ident = p.parse_maybe_opt_binding_ident(is_ident_required, true)?;
            if p.input().syntax().typescript() {
                if let Some(span) = ident.invalid_class_name() {
                    p.emit_err(span, SyntaxError::TS2414);
                }
            }

            let type_params = if p.input().syntax().typescript() {
                p.try_parse_ts_type_params(true, true)?
            } else {
                None
            };

            let (mut super_class, mut super_type_params) = if p.input_mut().eat(Token::Extends) {
                let (super_class, super_type_params) = p.parse_super_class()?;

                if p.syntax().typescript() && p.input_mut().eat(Token::Comma) {
                    let exprs = p.parse_ts_heritage_clause()?;

                    for e in &exprs {
                        p.emit_err(e.span(), SyntaxError::TS1174);
                    }
                }

                (Some(super_class), super_type_params)
            } else {
                (None, None)
            };

            // Handle TS1172
            if p.input_mut().eat(Token::Extends) {
                p.emit_err(p.input().prev_span(), SyntaxError::TS1172);

                p.parse_super_class()?;
            };

            let mut implements =
                if p.input().syntax().typescript() && p.input_mut().eat(Token::Implements) {
                    p.parse_ts_heritage_clause()?
                } else {
                    Vec::with_capacity(4)
                };

            if p.input().syntax().flow()
                && p.input().cur().is_word()
                && p.input().cur().take_word(&p.input) == atom!("mixins")
            {
                p.bump();
                let _ = p.parse_ts_heritage_clause()?;
            }

            if p.input().syntax().flow()
                && implements.is_empty()
                && p.input_mut().eat(Token::Implements)
            {
                implements = p.parse_ts_heritage_clause()?;
            }

            if p.input().syntax().flow() {
                for clause in &implements {
                    if let Expr::Ident(ident) = clause.expr.as_ref() {
                        if Self::is_flow_reserved_type_name(&ident.sym) {
                            p.emit_err(ident.span, SyntaxError::TS1003);
                        }
                    }
                }
            }

            {
                // Handle TS1175
                if p.input().syntax().typescript() && p.input_mut().eat(Token::Implements) {
                    p.emit_err(p.input().prev_span(), SyntaxError::TS1175);

                    p.parse_ts_heritage_clause()?;
                }
            }

            // Handle TS1173
            if p.input().syntax().typescript() && p.input_mut().eat(Token::Extends) {
                p.emit_err(p.input().prev_span(), SyntaxError::TS1173);

                let (sc, type_params) = p.parse_super_class()?;

                if super_class.is_none() {
                    super_class = Some(sc);
                    if type_params.is_some() {
                        super_type_params = type_params;
                    }
                }
            }

            expect!(p, Token::LBrace);

            let body = p.parse_class_body(super_class.is_some())?;

            // Consuming `}` also lexes the next token, which belongs to the enclosing
            // scope and must not inherit the class's strict mode.
            p.set_ctx(outer_ctx);
            if p.input().cur() == Token::Eof {
                let eof_text = p.input_mut().dump_cur();
                p.emit_err(
                    p.input().cur_span(),
                    SyntaxError::Expected(format!("{:?}", Token::RBrace), eof_text),
                );
            } else {
                expect!(p, Token::RBrace);
            }

            let span = p.span(class_start);
            Ok((
                ident,
                Box::new(Class {
                    span,
                    decorators,
                    is_abstract: false,
                    type_params,
                    super_class,
                    super_type_params,
                    body,
                    implements,
                    ..Default::default()
                }),
            ))
        })
    }
}

trait OutputType: Sized {
    const IS_IDENT_REQUIRED: bool;

    /// From babel..
    ///
    /// When parsing function expression, the binding identifier is parsed
    /// according to the rules inside the function.
    /// e.g. (function* yield() {}) is invalid because "yield" is disallowed in
    /// generators.
    /// This isn't the case with function declarations: function* yield() {} is
    /// valid because yield is parsed as if it was outside the generator.
    /// Therefore, this.state.inGenerator is set before or after parsing the
    /// function id according to the "isStatement" parameter.
    fn is_fn_expr() -> bool {
        false
    }

    fn finish_fn(span: Span, ident: Option<Ident>, f: Box<Function>) -> Result<Self, SyntaxError>;

    fn finish_class(
        span: Span,
        ident: Option<Ident>,
        class: Box<Class>,
    ) -> Result<Self, SyntaxError>;
}

impl OutputType for Box<Expr> {
    const IS_IDENT_REQUIRED: bool = false;

    fn is_fn_expr() -> bool {
        true
    }

    fn finish_fn(
        _span: Span,
        ident: Option<Ident>,
        function: Box<Function>,
    ) -> Result<Self, SyntaxError> {
        Ok(FnExpr { ident, function }.into())
    }

    fn finish_class(
        _span: Span,
        ident: Option<Ident>,
        class: Box<Class>,
    ) -> Result<Self, SyntaxError> {
        Ok(ClassExpr { ident, class }.into())
    }
}

impl OutputType for ExportDefaultDecl {
    const IS_IDENT_REQUIRED: bool = false;

    fn finish_fn(
        span: Span,
        ident: Option<Ident>,
        function: Box<Function>,
    ) -> Result<Self, SyntaxError> {
        Ok(ExportDefaultDecl {
            span,
            decl: DefaultDecl::Fn(FnExpr { ident, function }),
        })
    }

    fn finish_class(
        span: Span,
        ident: Option<Ident>,
        class: Box<Class>,
    ) -> Result<Self, SyntaxError> {
        Ok(ExportDefaultDecl {
            span,
            decl: DefaultDecl::Class(ClassExpr { ident, class }),
        })
    }
}

impl OutputType for Decl {
    const IS_IDENT_REQUIRED: bool = true;

    fn finish_fn(
        _span: Span,
        ident: Option<Ident>,
        function: Box<Function>,
    ) -> Result<Self, SyntaxError> {
        let ident = ident.ok_or(SyntaxError::ExpectedIdent)?;

        Ok(FnDecl {
            declare: false,
            ident,
            function,
        }
        .into())
    }

    fn finish_class(_: Span, ident: Option<Ident>, class: Box<Class>) -> Result<Self, SyntaxError> {
        let ident = ident.ok_or(SyntaxError::ExpectedIdent)?;

        Ok(ClassDecl {
            declare: false,
            ident,
            class,
        }
        .into())
    }
}

fn function_body_from_block_stmt(block_stmt: BlockStmt) -> FunctionBody {
    let BlockStmt { span, stmts, .. } = block_stmt;

    FunctionBody { span, stmts }
}

fn has_use_strict(block: &BlockStmt) -> Option<Span> {
    block
        .stmts
        .iter()
        .take_while(|s| s.can_precede_directive())
        .find_map(|s| {
            if s.is_use_strict() {
                Some(s.span())
            } else {
                None
            }
        })
}

fn is_constructor(key: &Key) -> bool {
    public_key_is(key, "constructor")
}

fn is_prototype(key: &Key) -> bool {
    public_key_is(key, "prototype")
}

fn public_key_is(key: &Key, expected: &str) -> bool {
    if let Key::Public(PropName::Ident(IdentName { sym, .. })) = key {
        sym.eq(expected)
    } else if let Key::Public(PropName::Str(Str { value, .. })) = key {
        value.eq(expected)
    } else {
        false
    }
}

pub(crate) fn is_not_this(p: &Param) -> bool {
    !matches!(
        &p.pat,
        Pat::Ident(BindingIdent {
            id: Ident{ sym: this, .. },
            ..
        })if &**this == "this"
    )
}

#[cfg(test)]
mod tests {

    use swc_common::DUMMY_SP as span;
    use swc_ecma_ast::*;
    use swc_ecma_visit::assert_eq_ignore_span;

    use crate::{test_parser, Syntax};

    fn expr(s: &'static str) -> Box<Expr> {
        test_parser(s, Syntax::default(), |p| p.parse_expr())
    }

    #[test]
    fn class_expr() {
        assert_eq_ignore_span!(
            expr("(class extends a {})"),
            Box::new(Expr::Paren(ParenExpr {
                span,
                expr: Box::new(Expr::Class(ClassExpr {
                    ident: None,
                    class: Box::new(Class {
                        decorators: Vec::new(),
                        span,
                        body: Vec::new(),
                        super_class: Some(expr("a")),
                        implements: Vec::new(),
                        is_abstract: false,
                        ..Default::default()
                    }),
                })),
            }))
        );
    }
}
