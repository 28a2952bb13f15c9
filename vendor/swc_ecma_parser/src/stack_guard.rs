//! OpenClaw patch (not upstream): a stack floor for hostile input.
//!
//! The parser is recursive descent with no depth limit, so deeply nested input overflows the
//! thread's stack and aborts the whole process. A caller sets a floor before parsing; once the
//! stack pointer is below it, the lexer reports end of input, so every recursive path of the
//! parser unwinds with an error instead (each nesting level consumes at least one token).

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static FLOOR: Cell<usize> = const { Cell::new(0) };
    static EXHAUSTED: Cell<bool> = const { Cell::new(false) };
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static TIMED_OUT: Cell<bool> = const { Cell::new(false) };
    static TICKS: Cell<u32> = const { Cell::new(0) };
}

/// Tokens between two looks at the clock.
const CLOCK_EVERY: u32 = 512;

/// Parsing on this thread must end by `deadline` (`None`: no limit): past it, the lexer
/// reports end of input, as for the stack floor. The TypeScript grammar backtracks, and some
/// short inputs take exponential time; this bounds them. Resets the timed-out flag.
pub fn set_deadline(deadline: Option<Instant>) {
    DEADLINE.with(|d| d.set(deadline));
    TIMED_OUT.with(|t| t.set(false));
    TICKS.with(|t| t.set(0));
}

/// True once the lexer found the deadline passed (sticky until `set_deadline`).
pub fn timed_out() -> bool {
    TIMED_OUT.with(|t| t.get())
}

/// An address in the current stack frame.
#[inline(always)]
pub fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Parsing on this thread may use `budget` more bytes of stack (the stack grows down);
/// `None` removes the floor. Resets the exhausted flag.
pub fn set_budget(budget: Option<usize>) {
    FLOOR.with(|f| f.set(budget.map_or(0, |b| stack_pointer().saturating_sub(b))));
    EXHAUSTED.with(|e| e.set(false));
}

/// True once the lexer found the stack below the floor (sticky until `set_budget`).
pub fn exhausted() -> bool {
    EXHAUSTED.with(|e| e.get())
}

/// Checks the floor; called by the lexer for every token.
#[inline]
pub(crate) fn check() -> bool {
    if EXHAUSTED.with(|e| e.get()) {
        return true;
    }
    let floor = FLOOR.with(|f| f.get());
    if floor != 0 && stack_pointer() < floor {
        EXHAUSTED.with(|e| e.set(true));
        return true;
    }
    if let Some(deadline) = DEADLINE.with(|d| d.get()) {
        let ticks = TICKS.with(|t| {
            let n = t.get().wrapping_add(1);
            t.set(n);
            n
        });
        if ticks % CLOCK_EVERY == 0 && Instant::now() >= deadline {
            TIMED_OUT.with(|t| t.set(true));
            EXHAUSTED.with(|e| e.set(true));
            return true;
        }
    }
    false
}
