//! The stack floor and the deadline of a parse, kept by a `Tokens` wrapper over swc's lexer.
//!
//! swc's parser is recursive descent with no depth limit: deeply nested input would overflow
//! the thread's stack, which aborts Node. And its TypeScript grammar backtracks, so some short
//! inputs would parse for minutes. `Guard` stands between the parser and the lexer: before
//! each token it compares the stack pointer with a floor set when the parse began and, every
//! `CLOCK_EVERY` tokens, the clock with the preparation deadline. Once either is crossed it
//! hands out only end of input, so every recursive path of the parser unwinds with an error,
//! and the caller learns why from `parse`.
//!
//! A check per token is enough for the parser's descent: each level of its recursion consumes
//! at least one token (`(`, `[`, `{`, `!`, `=>`, `?`, `<`, `${` …), so between two checks the
//! stack grows by a bounded run of frames. What recurses without reading tokens (the parser
//! re-reading an expression as a pattern or an assignment target, dropping a tree after a
//! syntax error, and every later walk) recurses over the tree the guarded descent built or
//! over a chain the parser builds in a loop; `depth` and `PREPARE_STACK`'s room below the floor
//! bound those.

use crate::error::{CODE_MODE_NAMES, ErrorCode, Failure, LimitNames};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Instant;
use swc_core::common::{BytePos, Span};
use swc_core::ecma::ast::EsVersion;
use swc_core::ecma::parser::error::Error;
use swc_core::ecma::parser::input::Tokens;
use swc_core::ecma::parser::lexer::TokenFlags;
use swc_core::ecma::parser::unstable::{Token, TokenAndSpan, TokenValue};
use swc_core::ecma::parser::{Context, Lexer, Parser, SyntaxFlags};
use swc_core::ecma::transforms::base::deadline as swc_deadline;

/// Tokens between two looks at the clock.
const CLOCK_EVERY: u32 = 512;

thread_local! {
  /// When preparation on this thread must end (`until`).
  static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
  /// How the host of the cell being prepared names it and its limits (`until`).
  static NAMES: Cell<&'static LimitNames> = const { Cell::new(&CODE_MODE_NAMES) };
}

/// Runs `f` with every guarded parse on this thread due by `deadline` (`None`: no limit), and
/// swc's walks that cost more than linear time (the resolver's scope lookups, the renamer's
/// scope unions: a program's size times its nesting depth) giving up at it, a patch of the
/// vendored swc_ecma_transforms_base. A pass cut short leaves a broken tree, which `in_time`
/// after it throws away.
pub(crate) fn until<T>(
  deadline: Option<Instant>,
  names: &'static LimitNames,
  f: impl FnOnce() -> T,
) -> T {
  let outer = DEADLINE.with(|d| d.replace(deadline));
  let outer_names = NAMES.with(|n| n.replace(names));
  let outer_swc = swc_deadline::set(deadline);
  let out = f();
  swc_deadline::set(outer_swc);
  NAMES.with(|n| n.set(outer_names));
  DEADLINE.with(|d| d.set(outer));
  out
}

/// The failure of a preparation that ran out of time before `stage` (`its source finished
/// parsing`), named as the cell's host names its cells and limits.
pub(crate) fn out_of_time(stage: &str) -> Failure {
  let names = NAMES.with(Cell::get);
  Failure::new(
    ErrorCode::Timeout,
    format!(
      "{} ran out of time ({}) before {stage}.",
      names.cell, names.timeout
    ),
  )
}

/// True once the deadline `until` set on this thread has passed. What runs after the parse (the
/// TypeScript transform and the emitter) looks between steps: each step is linear in the
/// program (at most 1 MiB), or gives up at the deadline itself (see `until`).
pub(crate) fn past_deadline() -> bool {
  DEADLINE
    .with(Cell::get)
    .is_some_and(|deadline| Instant::now() >= deadline)
}

/// Why a guarded parse was cut short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
  /// The stack reached the floor: the input nests too deeply, at the end of the last token
  /// read before (the parser's own error may point elsewhere: the TypeScript parser backtracks
  /// and reports the end of input it then sees).
  Floor(BytePos),
  /// The deadline passed.
  Deadline,
}

/// Parses with `parse` over `lexer` behind a guard: the parser may use `budget` more bytes of
/// stack than this frame, and must finish by the deadline `until` set. Also returns why the
/// guard cut the parse short, if it did; the parse's own result is then an error or a partial
/// tree ending early.
pub(crate) fn parse<'a, T>(
  lexer: Lexer<'a>,
  budget: usize,
  parse: impl FnOnce(&mut Parser<Guard<'a>>) -> T,
) -> (T, Option<Cut>) {
  let limits = Rc::new(Limits {
    floor: stack_pointer().saturating_sub(budget),
    deadline: DEADLINE.with(Cell::get),
    ticks: Cell::new(0),
    cut: Cell::new(None),
    last: Cell::new(lexer.start_pos()),
  });
  let last = lexer.start_pos();
  let mut parser = Parser::new_from(Guard {
    lexer,
    limits: limits.clone(),
    last,
  });
  let out = parse(&mut parser);
  (out, limits.cut.get())
}

/// An address in the current stack frame (the stack grows down).
#[inline(always)]
fn stack_pointer() -> usize {
  let marker = 0u8;
  std::hint::black_box(&marker) as *const u8 as usize
}

/// The limits of one parse, shared by every copy of its guard: the TypeScript parser clones
/// and rewinds its token source when it backtracks, and a cut must outlast that.
struct Limits {
  floor: usize,
  /// End of the furthest token read (shared: a rewound copy of the guard reads again).
  last: Cell<BytePos>,
  deadline: Option<Instant>,
  ticks: Cell<u32>,
  cut: Cell<Option<Cut>>,
}

impl Limits {
  /// Checks the floor and, now and then, the clock; true once either was crossed.
  #[inline(always)]
  fn crossed(&self) -> bool {
    if self.cut.get().is_some() {
      return true;
    }
    if stack_pointer() < self.floor {
      self.cut.set(Some(Cut::Floor(self.last.get())));
      return true;
    }
    if let Some(deadline) = self.deadline {
      let ticks = self.ticks.get().wrapping_add(1);
      self.ticks.set(ticks);
      if ticks.is_multiple_of(CLOCK_EVERY) && Instant::now() >= deadline {
        self.cut.set(Some(Cut::Deadline));
        return true;
      }
    }
    false
  }
}

/// swc's lexer behind the limits of one parse (see the module doc). Everything but reading a
/// token passes straight through.
#[derive(Clone)]
pub(crate) struct Guard<'a> {
  lexer: Lexer<'a>,
  limits: Rc<Limits>,
  /// End of the last token handed out: where end of input is reported once the parse is cut,
  /// so the error points at the place the nesting became too deep.
  last: BytePos,
}

impl Guard<'_> {
  /// Reads a token with `read`, or reports end of input once the limits are crossed.
  #[inline(always)]
  fn token(&mut self, read: impl FnOnce(&mut Self) -> TokenAndSpan) -> TokenAndSpan {
    if self.limits.crossed() {
      return TokenAndSpan::new(Token::Eof, Span::new(self.last, self.last), false);
    }
    let token = read(self);
    self.last = token.span.hi;
    if token.span.hi > self.limits.last.get() {
      self.limits.last.set(token.span.hi);
    }
    token
  }
}

impl<'a> Tokens for Guard<'a> {
  type Checkpoint = (<Lexer<'a> as Tokens>::Checkpoint, BytePos);

  fn set_ctx(&mut self, ctx: Context) {
    self.lexer.set_ctx(ctx)
  }

  fn ctx(&self) -> Context {
    self.lexer.ctx()
  }

  fn ctx_mut(&mut self) -> &mut Context {
    self.lexer.ctx_mut()
  }

  fn syntax(&self) -> SyntaxFlags {
    self.lexer.syntax()
  }

  fn target(&self) -> EsVersion {
    self.lexer.target()
  }

  fn checkpoint_save(&self) -> Self::Checkpoint {
    (self.lexer.checkpoint_save(), self.last)
  }

  fn checkpoint_load(&mut self, (checkpoint, last): Self::Checkpoint) {
    self.lexer.checkpoint_load(checkpoint);
    self.last = last;
  }

  fn read_string(&self, span: Span) -> &str {
    self.lexer.read_string(span)
  }

  fn start_pos(&self) -> BytePos {
    self.lexer.start_pos()
  }

  fn set_expr_allowed(&mut self, allow: bool) {
    self.lexer.set_expr_allowed(allow)
  }

  fn set_next_regexp(&mut self, start: Option<BytePos>) {
    self.lexer.set_next_regexp(start)
  }

  fn add_error(&mut self, error: Error) {
    self.lexer.add_error(error)
  }

  fn add_module_mode_error(&mut self, error: Error) {
    self.lexer.add_module_mode_error(error)
  }

  fn end_pos(&self) -> BytePos {
    self.lexer.end_pos()
  }

  fn take_errors(&mut self) -> Vec<Error> {
    self.lexer.take_errors()
  }

  fn has_errors(&self) -> bool {
    self.lexer.has_errors()
  }

  fn diagnostic_checkpoint_save(&self) -> (usize, usize) {
    self.lexer.diagnostic_checkpoint_save()
  }

  fn diagnostic_checkpoint_load(&mut self, checkpoint: (usize, usize)) {
    self.lexer.diagnostic_checkpoint_load(checkpoint)
  }

  fn take_script_module_errors(&mut self) -> Vec<Error> {
    self.lexer.take_script_module_errors()
  }

  fn set_defer_comments(&mut self, defer: bool) {
    self.lexer.set_defer_comments(defer)
  }

  fn finalize_comments(&mut self) {
    self.lexer.finalize_comments()
  }

  fn update_token_flags(&mut self, f: impl FnOnce(&mut TokenFlags)) {
    self.lexer.update_token_flags(f)
  }

  fn token_flags(&self) -> TokenFlags {
    self.lexer.token_flags()
  }

  fn clone_token_value(&self) -> Option<TokenValue> {
    self.lexer.clone_token_value()
  }

  fn take_token_value(&mut self) -> Option<TokenValue> {
    self.lexer.take_token_value()
  }

  fn get_token_value(&self) -> Option<&TokenValue> {
    self.lexer.get_token_value()
  }

  fn set_token_value(&mut self, token_value: Option<TokenValue>) {
    self.lexer.set_token_value(token_value)
  }

  fn first_token(&mut self) -> TokenAndSpan {
    self.token(|g| g.lexer.first_token())
  }

  fn next_token(&mut self) -> TokenAndSpan {
    self.token(|g| g.lexer.next_token())
  }

  fn scan_jsx_token(&mut self) -> TokenAndSpan {
    self.token(|g| g.lexer.scan_jsx_token())
  }

  fn scan_jsx_open_el_terminal_token(&mut self) -> TokenAndSpan {
    self.token(|g| g.lexer.scan_jsx_open_el_terminal_token())
  }

  fn rescan_jsx_open_el_terminal_token(&mut self, reset: BytePos) -> TokenAndSpan {
    self.token(|g| g.lexer.rescan_jsx_open_el_terminal_token(reset))
  }

  fn rescan_jsx_token(&mut self, reset: BytePos) -> TokenAndSpan {
    self.token(|g| g.lexer.rescan_jsx_token(reset))
  }

  fn rescan_type_gt(&mut self, span: Span) -> TokenAndSpan {
    self.token(|g| g.lexer.rescan_type_gt(span))
  }

  fn scan_jsx_identifier(&mut self, start: BytePos) -> TokenAndSpan {
    self.token(|g| g.lexer.scan_jsx_identifier(start))
  }

  fn scan_jsx_attribute_value(&mut self) -> TokenAndSpan {
    self.token(|g| g.lexer.scan_jsx_attribute_value())
  }

  fn rescan_template_token(&mut self, start: BytePos, start_with_back_tick: bool) -> TokenAndSpan {
    self.token(|g| g.lexer.rescan_template_token(start, start_with_back_tick))
  }
}
