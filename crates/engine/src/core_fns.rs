//! The engine's functions on every VM's `host` object (output, timers, yield, the outcome),
//! the promise table of host requests, and the guard every host function runs under.

use super::output::OutputItem;
use super::state::{MAX_TIMERS, Outcome, VmState};
use crate::error::panic_message;
use parking_lot::Mutex;
use rquickjs::{Ctx, Exception, Function, JsLifetime, Object, Promise};
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Throws a plain `Error` with `message` into the guest.
pub fn throw(ctx: &Ctx<'_>, message: &str) -> rquickjs::Error {
  Exception::throw_message(ctx, message)
}

/// Throws a `TypeError` with `message` into the guest.
pub fn throw_type(ctx: &Ctx<'_>, message: &str) -> rquickjs::Error {
  Exception::throw_type(ctx, message)
}

/// Runs the body of a host function. A panic must not reach rquickjs: it would become an
/// exception the guest can catch and carry on from. It kills the cell instead (terminal
/// `internal_error` at the guest's next poll, or when the slice returns) and throws.
pub fn guarded<'js, R>(
  ctx: &Ctx<'js>,
  state: &Mutex<VmState>,
  body: impl FnOnce() -> rquickjs::Result<R>,
) -> rquickjs::Result<R> {
  // A host function is not guest work: it may take locks shared beyond its VM.
  match crate::stuck::outside_guest(|| catch_unwind(AssertUnwindSafe(body))) {
    Ok(result) => result,
    Err(panic) => {
      // The lock may be held by the code that panicked (parking_lot does not poison, and the
      // guard was dropped while unwinding), so it is free here.
      state.lock().signals.panicked(panic_message(&*panic));
      Err(throw(ctx, "code mode runtime failed."))
    }
  }
}

/// The resolving functions of every host request's promise, by request id: an outcome
/// settles its promise from Rust, with no guest-visible table and no JavaScript in between.
#[derive(Default)]
pub struct RequestPromises<'js>(RefCell<HashMap<u32, (Function<'js>, Function<'js>)>>);

// SAFETY: `Changed` is the same struct with the `'js` lifetime swapped, as the trait requires.
unsafe impl<'js> JsLifetime<'js> for RequestPromises<'js> {
  type Changed<'to> = RequestPromises<'to>;
}

impl<'js> RequestPromises<'js> {
  /// The resolve and reject functions of request `id`'s promise, if it has one.
  pub fn take(&self, id: u32) -> Option<(Function<'js>, Function<'js>)> {
    self.0.borrow_mut().remove(&id)
  }
}

/// The promise of request `id`, which the engine settles when the host delivers its outcome.
pub fn request_promise<'js>(ctx: &Ctx<'js>, id: u32) -> rquickjs::Result<Promise<'js>> {
  let (promise, resolve, reject) = ctx.promise()?;
  ctx
    .userdata::<RequestPromises>()
    .ok_or_else(|| throw(ctx, "code mode runtime failed: the VM has no request table"))?
    .0
    .borrow_mut()
    .insert(id, (resolve, reject));
  Ok(promise)
}

/// Adds the engine's functions to `host`: `out(kind, text)`, `timer(ms)`, `clearTimer(id)`,
/// `yield(reason)` and `done(ok, json)` (see `prelude.js`).
pub fn install<'js>(
  ctx: &Ctx<'js>,
  host: &Object<'js>,
  state: &Arc<Mutex<VmState>>,
) -> rquickjs::Result<()> {
  let s = state.clone();
  host.set(
    "out",
    Function::new(
      ctx.clone(),
      move |ctx: Ctx<'js>, kind: u32, text: String| {
        guarded(&ctx, &s, || {
          let item = if kind == 0 {
            OutputItem::Text(text)
          } else {
            OutputItem::Json(text)
          };
          s.lock().push_output(item);
          Ok(())
        })
      },
    )?,
  )?;

  let s = state.clone();
  host.set(
    "timer",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, delay: f64| {
      guarded(&ctx, &s, || {
        let mut state = s.lock();
        if state.timers.len() >= MAX_TIMERS {
          // Never build an exception under the state lock (see lib.rs, lock order).
          drop(state);
          return Err(throw(
            &ctx,
            &format!("Too many pending timers: at most {MAX_TIMERS} may be scheduled at once."),
          ));
        }
        let delay = Duration::from_secs_f64((delay / 1000.0).clamp(0.0, 2_147_483.647));
        let id = state.next_id();
        state.timers.insert(id, Instant::now() + delay);
        Ok(id)
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "clearTimer",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, id: u32| {
      guarded(&ctx, &s, || {
        s.lock().timers.remove(&id);
        Ok(())
      })
    })?,
  )?;

  let s = state.clone();
  host.set(
    "yield",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, _reason: String| {
      guarded(&ctx, &s, || Ok(s.lock().yield_now()))
    })?,
  )?;

  let s = state.clone();
  host.set(
    "done",
    Function::new(ctx.clone(), move |ctx: Ctx<'js>, ok: bool, text: String| {
      guarded(&ctx, &s, || {
        let mut state = s.lock();
        if state.outcome.is_none() {
          state.outcome = Some(if ok {
            Outcome::Value(text)
          } else {
            Outcome::Error(text)
          });
        }
        Ok(())
      })
    })?,
  )?;
  Ok(())
}
