//! The read end of a sandbox process's channel (ARCHITECTURE.md, "Sandbox processes", the
//! channel): the pipe its reports come through and what has been read of it, one report at a
//! time. Who reads it, and when, is `reading.rs`'s.

use code_mode_protocol::wire::{self, Report};
use parking_lot::Mutex;
use std::fs::File;
#[cfg(unix)]
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// The read end of a process's channel and what has been read of it.
pub struct Inbox {
  pub(super) file: File,
  /// A thread reads, for good (it holds `state` while it waits for the pipe).
  pub(super) by_thread: AtomicBool,
  /// A late reader is at it (`reading::read_late`).
  pub(super) late: AtomicBool,
  /// Reads so far, by anyone, and the count the supervisor saw at its last look with bytes
  /// waiting (`u64::MAX`: none waited).
  pub(super) pumps: AtomicU64,
  pub(super) seen: AtomicU64,
  pub(super) state: Mutex<State>,
}

#[derive(Default)]
pub(super) struct State {
  /// Bytes read and not yet dispatched: `buf[at..]`.
  pub(super) buf: Vec<u8>,
  pub(super) at: usize,
  /// Where a read lands ([`CHUNK`] bytes once the first read comes).
  pub(super) chunk: Vec<u8>,
  /// The channel closed or broke; `died` has been called (or is being).
  pub(super) closed: bool,
}

/// How much one read takes.
pub(super) const CHUNK: usize = 64 << 10;
/// The buffer's capacity kept after a report: what a larger one took is freed.
const KEPT: usize = 1 << 20;

impl Inbox {
  /// The inbox of a pipe (made nonblocking on Unix, for every reader).
  pub fn new(file: File) -> std::io::Result<Inbox> {
    #[cfg(unix)]
    set_nonblocking(&file)?;
    Ok(Inbox {
      file,
      by_thread: AtomicBool::new(false),
      late: AtomicBool::new(false),
      pumps: AtomicU64::new(0),
      seen: AtomicU64::new(u64::MAX),
      state: Mutex::new(State::default()),
    })
  }
}

/// The next whole report in `state`'s buffer; an error for a frame over [`wire::MAX_REPORT`]
/// or one that does not decode (the process is then treated as ended).
pub(super) fn next_frame(state: &mut State) -> Result<Option<Report>, ()> {
  const HEADER: usize = wire::FRAME_HEADER;
  let pending = &state.buf[state.at..];
  let Some(&header) = pending.first_chunk::<HEADER>() else {
    return Ok(None);
  };
  let len = wire::body_len(header, wire::MAX_REPORT).map_err(|_| ())?;
  let Some(body) = pending.get(HEADER..HEADER + len) else {
    state.buf.reserve(HEADER + len - pending.len());
    return Ok(None);
  };
  let report = wire::decode(body).map_err(|_| ())?;
  state.at += HEADER + len;
  if state.at == state.buf.len() {
    state.at = 0;
    // One large report must not keep its memory for the process's life.
    if state.buf.capacity() > KEPT {
      state.buf = Vec::new();
    } else {
      state.buf.clear();
    }
  }
  Ok(Some(report))
}

/// Whether bytes wait in the pipe.
#[cfg(unix)]
pub(super) fn unread(file: &File) -> bool {
  let mut bytes: libc::c_int = 0;
  // SAFETY: the fd is open (borrowed from `file`); FIONREAD writes one int.
  let status = unsafe { libc::ioctl(file.as_raw_fd(), libc::FIONREAD, &mut bytes) };
  status == 0 && bytes > 0
}

/// Elsewhere a thread always reads.
#[cfg(not(unix))]
pub(super) fn unread(_file: &File) -> bool {
  false
}

/// Waits until the pipe has bytes or is closed.
#[cfg(unix)]
pub(super) fn wait_readable(file: &File) {
  let mut fds = libc::pollfd {
    fd: file.as_raw_fd(),
    events: libc::POLLIN,
    revents: 0,
  };
  // SAFETY: one valid pollfd, for the call; an interrupted wait just reads again.
  unsafe { libc::poll(&mut fds, 1, -1) };
}

/// Elsewhere the pipe blocks in `read`, so this is never reached.
#[cfg(not(unix))]
pub(super) fn wait_readable(_file: &File) {}

/// Makes the pipe nonblocking, for good: no reader ever waits in `read` (a thread waits in
/// `poll(2)`), so none can be caught there by another reader's switch.
#[cfg(unix)]
fn set_nonblocking(file: &File) -> std::io::Result<()> {
  let fd = file.as_raw_fd();
  // SAFETY: `fd` is open (borrowed from `file` for the two calls); F_GETFL/F_SETFL touch only
  // its status flags.
  unsafe {
    let flags = libc::fcntl(fd, libc::F_GETFL);
    if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
      return Err(std::io::Error::last_os_error());
    }
  }
  Ok(())
}
