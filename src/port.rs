//! The one channel from Rust to the run's JavaScript layer (`lib/run.js`).
//!
//! Every message a run sends (start nested calls, abort a cell's calls, deliver a leg's
//! result, report an event) goes through one ThreadsafeFunction, so the JavaScript side sees
//! them in the order they were sent: a leg's events always arrive before its result. What the
//! messages hold is `src/protocol`'s.

use crate::protocol::Message;
use napi::Status;
use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::{
  ThreadsafeFunction, ThreadsafeFunctionCallMode, UnknownReturnValue,
};

/// Where a run's messages go. The napi port in production; a channel in Rust tests.
pub trait Port: Send + Sync {
  fn send(&self, message: Message);
}

/// JS signature: `(kind: number, id: number, payload: string) => void`. Weak, so parked cells
/// never keep Node alive; plain arguments (not error-first).
pub type PortFn = ThreadsafeFunction<
  FnArgs<(u32, f64, String)>,
  UnknownReturnValue,
  FnArgs<(u32, f64, String)>,
  Status,
  false,
  true,
>;

pub struct JsPort {
  function: PortFn,
}

impl JsPort {
  pub fn new(function: PortFn) -> Self {
    JsPort { function }
  }
}

impl Port for JsPort {
  fn send(&self, message: Message) {
    // With a return callback, a throw in the JS port is handed to that callback instead of
    // reaching `napi_fatal_exception`; the callback ignores it. A closing env drops the message.
    let _ = self.function.call_with_return_value(
      FnArgs::from(message.into_args()),
      ThreadsafeFunctionCallMode::NonBlocking,
      |_, _| Ok(()),
    );
  }
}
