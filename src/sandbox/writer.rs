//! The writing end of a sandbox process's channel. Node's main thread sends most commands, and
//! must never block on a process that stops reading: a frame goes straight into the pipe when
//! it fits (Unix: the pipe is non-blocking), and what does not fit waits in a queue that a
//! thread of its own writes out. A process whose queue keeps growing is not reading: the
//! supervisor kills it before the queue costs much (see [`Writer::backlog`]).

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

struct State {
  queue: VecDeque<Vec<u8>>,
  /// Bytes of the front frame already written.
  written: usize,
  backlog: usize,
  closed: bool,
}

pub struct Writer {
  state: Mutex<State>,
  wake: Condvar,
  #[cfg(unix)]
  fd: std::os::fd::RawFd,
}

impl Writer {
  /// Takes the pipe to the process's standard input and starts its flushing thread.
  pub fn start(pipe: std::process::ChildStdin, name: String) -> std::io::Result<Arc<Writer>> {
    #[cfg(unix)]
    let fd = {
      use std::os::fd::AsRawFd;
      let fd = pipe.as_raw_fd();
      // SAFETY: fcntl on a descriptor this process owns; a failure leaves it blocking, which
      // only costs the main thread a wait on a full pipe.
      unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        #[cfg(target_os = "linux")]
        libc::fcntl(fd, libc::F_SETPIPE_SZ, 1 << 20);
      }
      fd
    };
    let writer = Arc::new(Writer {
      state: Mutex::new(State {
        queue: VecDeque::new(),
        written: 0,
        backlog: 0,
        closed: false,
      }),
      wake: Condvar::new(),
      #[cfg(unix)]
      fd,
    });
    let flusher = writer.clone();
    std::thread::Builder::new()
      .name(name)
      .spawn(move || flusher.flush_loop(pipe))?;
    Ok(writer)
  }

  /// Sends one frame. False when the channel is closed (the process is gone).
  pub fn send(&self, frame: Vec<u8>) -> bool {
    let mut state = self.state.lock();
    if state.closed {
      return false;
    }
    if state.queue.is_empty() {
      let sent = self.try_write(&frame);
      if sent == frame.len() {
        return true;
      }
      state.written = sent;
    }
    state.backlog += frame.len();
    state.queue.push_back(frame);
    self.wake.notify_one();
    true
  }

  /// Bytes waiting for the process to read them.
  pub fn backlog(&self) -> usize {
    self.state.lock().backlog
  }

  /// Stops writing; later sends fail.
  pub fn close(&self) {
    let mut state = self.state.lock();
    state.closed = true;
    state.queue.clear();
    state.backlog = 0;
    self.wake.notify_one();
  }

  /// Writes what fits now without waiting; the bytes written.
  #[cfg(unix)]
  fn try_write(&self, frame: &[u8]) -> usize {
    let mut at = 0;
    while at < frame.len() {
      // SAFETY: a write from a live buffer to a descriptor this writer owns (closed only when
      // the pipe is dropped, after `closed` is set and under the same lock).
      let n = unsafe { libc::write(self.fd, frame[at..].as_ptr().cast(), frame.len() - at) };
      if n <= 0 {
        break;
      }
      at += n as usize;
    }
    at
  }

  /// Windows pipes are written by the flushing thread only.
  #[cfg(not(unix))]
  fn try_write(&self, _frame: &[u8]) -> usize {
    0
  }

  fn flush_loop(&self, mut pipe: std::process::ChildStdin) {
    loop {
      let (frame, from) = {
        let mut state = self.state.lock();
        while state.queue.is_empty() && !state.closed {
          self.wake.wait(&mut state);
        }
        if state.closed {
          return;
        }
        let from = state.written;
        match state.queue.front() {
          Some(frame) => (frame.clone(), from),
          None => continue,
        }
      };
      if !write_blocking(&mut pipe, &frame[from..]) {
        self.close();
        return;
      }
      let mut state = self.state.lock();
      state.written = 0;
      if let Some(done) = state.queue.pop_front() {
        state.backlog = state.backlog.saturating_sub(done.len());
      }
    }
  }
}

/// Writes all of `bytes`, waiting for room (the pipe may be non-blocking).
fn write_blocking(pipe: &mut std::process::ChildStdin, bytes: &[u8]) -> bool {
  let mut at = 0;
  while at < bytes.len() {
    match pipe.write(&bytes[at..]) {
      Ok(0) => return false,
      Ok(n) => at += n,
      Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => wait_writable(pipe),
      Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
      Err(_) => return false,
    }
  }
  true
}

#[cfg(unix)]
fn wait_writable(pipe: &std::process::ChildStdin) {
  use std::os::fd::AsRawFd;
  let mut poll = libc::pollfd {
    fd: pipe.as_raw_fd(),
    events: libc::POLLOUT,
    revents: 0,
  };
  // SAFETY: poll on one valid pollfd; a timeout lets a closed writer notice soon.
  unsafe { libc::poll(&mut poll, 1, 1000) };
}

#[cfg(not(unix))]
fn wait_writable(_pipe: &std::process::ChildStdin) {
  std::thread::sleep(std::time::Duration::from_millis(1));
}
