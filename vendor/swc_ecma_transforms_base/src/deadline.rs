//! code-mode patch: a deadline at which this crate's walks that cost more than linear time give
//! up. The resolver looks every reference up through its enclosing scopes, and the renamer
//! unites every scope's bindings with its descendants', so both cost a program's size times its
//! nesting depth. Past the deadline they stop early and leave the program half done: whoever
//! sets a deadline must discard the output of a pass that ran past it.

use std::{cell::Cell, time::Instant};

/// Calls of `passed` between two looks at the clock.
const CLOCK_EVERY: u32 = 256;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static TICKS: Cell<u32> = const { Cell::new(0) };
    static PASSED: Cell<bool> = const { Cell::new(false) };
}

/// Sets this thread's deadline (`None`: none); returns the one it replaces.
pub fn set(deadline: Option<Instant>) -> Option<Instant> {
    PASSED.with(|passed| passed.set(false));
    TICKS.with(|ticks| ticks.set(0));
    DEADLINE.with(|d| d.replace(deadline))
}

/// True once this thread's deadline has passed (the clock is read every `CLOCK_EVERY` calls).
#[inline]
pub(crate) fn passed() -> bool {
    if PASSED.with(Cell::get) {
        return true;
    }
    let Some(deadline) = DEADLINE.with(Cell::get) else {
        return false;
    };
    let ticks = TICKS.with(|ticks| {
        let next = ticks.get().wrapping_add(1);
        ticks.set(next);
        next
    });
    if ticks % CLOCK_EVERY == 0 && Instant::now() >= deadline {
        PASSED.with(|passed| passed.set(true));
        return true;
    }
    false
}
