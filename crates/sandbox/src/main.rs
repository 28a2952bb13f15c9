//! `code-mode-sandbox`: the process the addon starts to run guest work. No Node in it.
//!
//! `code-mode-sandbox <parent pid> [--debug]`. Its standard input and output are one channel to
//! the addon (its standard input and output: two pipes) carrying `code_mode_protocol::wire` frames;
//! its environment is empty and its standard error goes nowhere unless `--debug`.
//!
//! Start-up, in this order: die with the parent; read the first frame (`Configure`); start
//! everything that needs more of the operating system than the sandbox will allow later (the
//! worker pool, the clock thread, the guests' compiled preludes, the freezer's signal handler);
//! then lock down (`harden.rs`: on Linux no file system, network or processes, by a seccomp
//! allow-list; crates/confine on Windows and macOS) and serve the channel until it closes.

#[cfg(target_os = "linux")]
mod harden;
mod platform;

use code_mode_protocol::wire::{self, Command, Report};
use code_mode_sandbox::{Sandbox, Sink};
use parking_lot::Mutex;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

/// swc and QuickJS allocate many small blocks from several threads: mimalloc serves them far
/// faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Marks a testing build: `npm run package` refuses an executable that holds this string
/// (`TESTING_SANDBOX_MARKER` in tools/binaries.mjs), as it refuses the testing addon.
#[cfg(feature = "testing")]
#[used]
static TESTING_MARKER: [u8; 33] = *b"code-mode-sandbox: testing build\0";

/// How often the process says it is alive (the addon kills one that stops).
const HEARTBEAT: Duration = Duration::from_secs(1);

/// The channel's writing end: one frame at a time, from any thread.
struct Channel<W: Write + Send + 'static> {
  out: Mutex<W>,
}

impl<W: Write + Send + 'static> Sink for Channel<W> {
  fn report(&self, report: Report) {
    let frame = wire::encode_report(report);
    let mut out = self.out.lock();
    if out.write_all(&frame).and_then(|_| out.flush()).is_err() {
      // The addon is gone: nothing left to serve.
      platform::exit_now(0);
    }
  }
}

fn main() {
  let mut args = std::env::args().skip(1);
  let parent = args.next().and_then(|pid| pid.parse::<u32>().ok());
  let debug = args.any(|arg| arg == "--debug");
  platform::die_with_parent(parent);
  // Before any thread starts (capabilities are per thread); a failure ends the process before
  // it reads anything, and the addon reports the process lost.
  #[cfg(target_os = "linux")]
  if platform::drop_capabilities().is_err() {
    platform::exit_now(3);
  }

  let (mut input, output) = platform::channel();
  let settings = match read_command(&mut input) {
    Some(Command::Configure(settings)) => settings,
    _ => platform::exit_now(2),
  };
  code_mode_sandbox::configure(&settings);
  let sink: Arc<dyn Sink> = Arc::new(Channel {
    out: Mutex::new(output),
  });
  platform::start_up(&settings, sink.clone());
  #[cfg(feature = "testing")]
  let _ = code_mode_sandbox::PROBE.set(platform::probe);
  match platform::lock_down(&settings, debug) {
    Ok(None) => {}
    // Locked down, less a best-effort part: said on standard error, which only `--debug`
    // keeps (a report would stay the process's last log and explain its eventual end wrongly).
    Ok(Some(note)) => {
      let _ = writeln!(std::io::stderr(), "code-mode-sandbox: {note}");
    }
    Err(message) => {
      // Fail closed: a sandbox that could not lock itself down runs nothing.
      sink.report(Report::Log {
        message: format!("the code mode sandbox could not lock itself down: {message}"),
      });
      platform::exit_now(3);
    }
  }

  let heartbeat = sink.clone();
  code_mode_engine::clock::every(HEARTBEAT, move || {
    if !code_mode_sandbox::silent() {
      heartbeat.report(Report::Heartbeat)
    }
  });
  let sandbox = Sandbox::new(sink);
  while let Some(command) = read_command(&mut input) {
    sandbox.handle(command);
  }
  // The addon closed the channel (or died): stop at once, whatever runs.
  platform::exit_now(0);
}

/// The next command; `None` when the channel closed or carried something that is not one.
fn read_command(input: &mut impl Read) -> Option<Command> {
  let frame = wire::read_frame(input, wire::MAX_FRAME).ok()??;
  wire::decode(&frame).ok()
}
