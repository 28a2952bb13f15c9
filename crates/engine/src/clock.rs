//! One thread for every timed event: guest timers, leg wall clocks, queued-leg timeouts and
//! the TTL of suspended cells. A current-thread tokio runtime gives it a timer wheel.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;
use std::time::Instant;
use tokio::runtime::Handle;
use tokio::task::AbortHandle;

#[allow(
  clippy::expect_used,
  reason = "without its clock thread the engine cannot keep a deadline: a process that cannot start one must not run cells"
)]
fn handle() -> &'static Handle {
  static CLOCK: OnceLock<Handle> = OnceLock::new();
  CLOCK.get_or_init(|| {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
      .name("code-mode-clock".into())
      .spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
          .enable_time()
          .build()
          .expect("the clock runtime needs only a timer");
        let _ = tx.send(runtime.handle().clone());
        runtime.block_on(std::future::pending::<()>());
      })
      .expect("spawning the clock thread");
    rx.recv().expect("the clock thread starts")
  })
}

/// Runs `f` on the clock thread at `when` (at once if it is past). Dropping the returned handle
/// does not cancel it; call `abort`.
pub fn at(when: Instant, f: impl FnOnce() + Send + 'static) -> AbortHandle {
  handle()
    .spawn(async move {
      tokio::time::sleep_until(tokio::time::Instant::from_std(when)).await;
      // A panic here must not take the clock thread (and every later timer) with it.
      let _ = catch_unwind(AssertUnwindSafe(f));
    })
    .abort_handle()
}

/// Runs `f` on the clock thread every `period`, for the life of the process.
pub fn every(period: std::time::Duration, mut f: impl FnMut() + Send + 'static) {
  handle().spawn(async move {
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
      ticks.tick().await;
      let _ = catch_unwind(AssertUnwindSafe(&mut f));
    }
  });
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::mpsc;
  use std::time::Duration;

  #[test]
  fn fires_in_order_and_cancels() {
    let (tx, rx) = mpsc::channel();
    let now = Instant::now();
    let t2 = tx.clone();
    at(now + Duration::from_millis(30), move || t2.send(2).unwrap());
    let t1 = tx.clone();
    at(now + Duration::from_millis(10), move || t1.send(1).unwrap());
    let t3 = tx.clone();
    at(now + Duration::from_millis(20), move || t3.send(3).unwrap()).abort();
    at(now, || panic!("a panicking timer does not stop the clock"));
    let got: Vec<i32> = (0..2)
      .map(|_| rx.recv_timeout(Duration::from_secs(2)).unwrap())
      .collect();
    assert_eq!(got, vec![1, 2]);
  }
}
