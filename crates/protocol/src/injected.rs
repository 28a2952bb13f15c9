//! Injected panics (the `testing` builds' fault injection: crates/engine/src/testing.rs in a
//! sandbox process, src/testing_exports.rs in the addon) are expected: the default hook would
//! print each one's message and backtrace into the test output, dozens per `npm test`.

/// How every injected panic's message starts.
pub const INJECTED: &str = "test fault: ";

/// Installs, once per process, a panic hook that stays quiet for injected panics (their message
/// starts with [`INJECTED`]) and passes every other panic to the hook it replaced, so a real
/// panic still prints.
pub fn quiet_injected_panics() {
  static ONCE: std::sync::Once = std::sync::Once::new();
  ONCE.call_once(|| {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
      let payload = info.payload();
      let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
      if !message.is_some_and(|m| m.starts_with(INJECTED)) {
        previous(info);
      }
    }));
  });
}
