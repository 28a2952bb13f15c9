//! Who reads a sandbox process's reports, and when (ARCHITECTURE.md, "Sandbox processes", the
//! channel); what is read is `inbox.rs`'s.
//!
//! On Unix the gateway's own event loop reads them: libuv polls the process's pipe (`uv_poll`),
//! so a leg's end wakes Node's main thread directly, not a reader thread that then wakes it
//! (docs/performance.md measured the hop). A thread reads instead where the loop cannot: on
//! Windows (libuv polls only sockets there), in a host without libuv's symbols, and for processes
//! whose loop's Node environment has ended. Either way the reports of one process are dispatched
//! in order, by one reader at a time (the inbox's lock). (The Rust tests' in-process sandboxes
//! have no inbox: they dispatch directly.)
//!
//! A busy main thread must not stall a process (its writes block on a full pipe) or make it
//! look silent: what waits unread for a whole supervisor tick is read by a thread
//! ([`read_late`]).

use super::inbox::{CHUNK, State, next_frame, unread, wait_readable};
use super::process::Process;
use code_mode_protocol::wire::Report;
use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// What the supervisor does with a process's reports, and when its channel closes.
#[derive(Clone, Copy)]
pub struct Routes {
  pub dispatch: fn(&Arc<Process>, Report),
  pub died: fn(&Arc<Process>),
}

/// The supervisor's [`Routes`], handed over with the first process ([`listen`]): the same for
/// every process.
static ROUTES: OnceLock<Routes> = OnceLock::new();

/// How much one turn of the loop reads before it lets other callbacks run.
const LOOP_BUDGET: usize = 1 << 20;
/// How much a late reader reads for a loop that is behind.
const LATE_BUDGET: usize = 16 << 20;

/// The outcome of one read.
#[derive(PartialEq, Eq)]
enum Pumped {
  /// More may come.
  Open,
  /// This call found the channel closed (or a frame it cannot take): its caller runs `died`.
  JustClosed,
  /// Closed before, or read by a thread now: nothing to do.
  Done,
}

/// Set by the tests (`__testReadReportsOnThreads`): threads read every process started from
/// then on, as on Windows.
#[cfg_attr(not(unix), allow(dead_code))]
static THREADS_ONLY: AtomicBool = AtomicBool::new(false);

#[cfg(feature = "testing")]
pub fn read_on_threads_for_tests(on: bool) {
  THREADS_ONLY.store(on, Ordering::Relaxed);
}

/// Who reads `process`'s reports: `loop` or `thread` (for the tests).
#[cfg(feature = "testing")]
pub fn reader(process: &Process) -> &'static str {
  match process.inbox.as_ref() {
    Some(inbox) if !inbox.by_thread.load(Ordering::Acquire) => "loop",
    _ => "thread",
  }
}

/// Starts reading `process`'s reports into `routes` (the supervisor's, the same every time): by
/// the home loop where there is one, else by a thread.
pub fn listen(process: &Arc<Process>, routes: Routes) -> std::io::Result<()> {
  ROUTES.get_or_init(|| routes);
  #[cfg(unix)]
  if !THREADS_ONLY.load(Ordering::Relaxed) && home::watch(process) {
    return Ok(());
  }
  read_on_a_thread(process)
}

/// A thread reads `process`'s reports from now on, until its channel closes. Should it not
/// start, the supervisor's late reads ([`read_late`]) stay its reader, slower.
fn read_on_a_thread(process: &Arc<Process>) -> std::io::Result<()> {
  let Some(inbox) = process.inbox.as_ref() else {
    return Ok(());
  };
  let reading = process.clone();
  std::thread::Builder::new()
    .name(format!("code-mode-sandbox-{}-in", process.id))
    .spawn(move || {
      if guarded_pump(&reading, Reader::Thread) == Pumped::JustClosed {
        died(&reading);
      }
    })?;
  inbox.by_thread.store(true, Ordering::Release);
  Ok(())
}

/// The supervisor's look, every tick: when bytes have waited in the pipe for a whole tick and
/// the loop has not read since (its thread is busy), a thread of its own reads them (up to
/// [`LATE_BUDGET`]), so that the process's writes do not block and its heartbeats are heard.
/// Not on the supervisor's thread: what a report sets off can ask the supervisor for a process.
pub fn read_late(process: &Arc<Process>) {
  let Some(inbox) = process.inbox.as_ref() else {
    return;
  };
  if inbox.by_thread.load(Ordering::Acquire) || !unread(&inbox.file) {
    inbox.seen.store(u64::MAX, Ordering::Relaxed);
    return;
  }
  let pumps = inbox.pumps.load(Ordering::Acquire);
  if inbox.seen.swap(pumps, Ordering::Relaxed) != pumps || inbox.late.swap(true, Ordering::AcqRel) {
    return;
  }
  let reading = process.clone();
  let started = std::thread::Builder::new()
    .name("code-mode-sandbox-late".into())
    .spawn(move || {
      let Some(inbox) = reading.inbox.as_ref() else {
        return;
      };
      if guarded_pump(&reading, Reader::Late) == Pumped::JustClosed {
        died(&reading);
      }
      inbox.late.store(false, Ordering::Release);
    });
  if started.is_err() {
    inbox.late.store(false, Ordering::Release);
  }
}

/// Runs `died` for a process whose channel the loop found closed: on a thread of its own,
/// since it reaps the process, which can wait on it.
#[cfg(unix)]
fn died_elsewhere(process: &Arc<Process>) {
  let dying = process.clone();
  if std::thread::Builder::new()
    .name("code-mode-sandbox-reap".into())
    .spawn(move || died(&dying))
    .is_err()
  {
    died(process);
  }
}

/// The supervisor's `died` for `process`, whose channel closed.
fn died(process: &Arc<Process>) {
  if let Some(routes) = ROUTES.get() {
    (routes.died)(process);
  }
}

/// [`pump`], where a panic in handling a report ends the process rather than the thread
/// reading (or, on the loop, Node): the channel counts as closed, and its caller runs `died`.
fn guarded_pump(process: &Arc<Process>, reader: Reader) -> Pumped {
  match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pump(process, reader))) {
    Ok(pumped) => pumped,
    Err(_) => {
      process.kill("killed: the gateway could not handle one of its reports");
      match process.inbox.as_ref() {
        Some(inbox) if !std::mem::replace(&mut inbox.state.lock().closed, true) => {
          Pumped::JustClosed
        }
        _ => Pumped::Done,
      }
    }
  }
}

/// Who reads, for [`pump`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reader {
  /// The home loop: what is there, up to [`LOOP_BUDGET`]; waits for a late reader to finish.
  #[cfg_attr(not(unix), allow(dead_code))]
  Loop,
  /// A late reader: what is there, up to [`LATE_BUDGET`]; leaves it to a reader already at it.
  Late,
  /// A thread of its own: everything, waiting for the pipe, until the channel closes.
  Thread,
}

/// Reads and dispatches reports, in order, under the inbox's lock. The pipe never blocks (it
/// is nonblocking on Unix from the start), so no reader waits in `read`; a thread waits for the
/// pipe in `poll(2)` instead.
fn pump(process: &Arc<Process>, reader: Reader) -> Pumped {
  let Some(inbox) = process.inbox.as_ref() else {
    return Pumped::Done;
  };
  if reader != Reader::Thread && inbox.by_thread.load(Ordering::Acquire) {
    return Pumped::Done;
  }
  let mut state = match reader {
    Reader::Late => match inbox.state.try_lock() {
      Some(state) => state,
      None => return Pumped::Open,
    },
    Reader::Loop | Reader::Thread => inbox.state.lock(),
  };
  if state.closed {
    return Pumped::Done;
  }
  inbox.pumps.fetch_add(1, Ordering::AcqRel);
  let budget = match reader {
    Reader::Loop => LOOP_BUDGET,
    Reader::Late => LATE_BUDGET,
    Reader::Thread => usize::MAX,
  };
  let mut read = 0;
  loop {
    // Every whole frame first, in order, under the lock: a second reader cannot overtake.
    loop {
      match next_frame(&mut state) {
        Ok(Some(report)) => {
          if let Some(routes) = ROUTES.get() {
            (routes.dispatch)(process, report);
          }
        }
        Ok(None) => break,
        Err(()) => {
          state.closed = true;
          return Pumped::JustClosed;
        }
      }
    }
    if read >= budget {
      return Pumped::Open;
    }
    let State { buf, at, chunk, .. } = &mut *state;
    if *at > 0 {
      buf.drain(..*at);
      *at = 0;
    }
    chunk.resize(CHUNK, 0);
    match (&inbox.file).read(chunk) {
      Ok(0) => {
        state.closed = true;
        return Pumped::JustClosed;
      }
      Ok(n) => {
        buf.extend_from_slice(&chunk[..n]);
        read += n;
      }
      Err(e) => match e.kind() {
        ErrorKind::Interrupted => {}
        ErrorKind::WouldBlock if reader == Reader::Thread => wait_readable(&inbox.file),
        ErrorKind::WouldBlock => return Pumped::Open,
        _ => {
          state.closed = true;
          return Pumped::JustClosed;
        }
      },
    }
  }
}

/// The home loop: the event loop of the first Node environment that loaded the addon, which
/// polls every process's pipe while that environment lives.
#[cfg(unix)]
mod home {
  use super::{Pumped, Reader, died_elsewhere, guarded_pump, read_on_a_thread};
  use crate::sandbox::process::Process;
  use napi::sys;
  use parking_lot::Mutex;
  use std::ffi::{c_int, c_void};
  use std::os::fd::AsRawFd;
  use std::ptr;
  use std::sync::atomic::{AtomicUsize, Ordering};
  use std::sync::{Arc, OnceLock};

  /// libuv's functions, looked up in the host process (Node exports them); none, and the
  /// threads read, where a host does not.
  struct Uv {
    handle_size: HandleSize,
    poll_init: PollInit,
    poll_start: PollStart,
    poll_stop: HandleFn,
    close: Close,
    unref: Unref,
  }

  type PollCb = unsafe extern "C" fn(*mut c_void, c_int, c_int);
  type CloseCb = unsafe extern "C" fn(*mut c_void);
  type HandleSize = unsafe extern "C" fn(c_int) -> usize;
  type PollInit = unsafe extern "C" fn(*mut c_void, *mut c_void, c_int) -> c_int;
  type PollStart = unsafe extern "C" fn(*mut c_void, c_int, PollCb) -> c_int;
  type HandleFn = unsafe extern "C" fn(*mut c_void) -> c_int;
  type Close = unsafe extern "C" fn(*mut c_void, CloseCb);
  type Unref = unsafe extern "C" fn(*mut c_void);

  /// `UV_POLL` in libuv's `uv_handle_type` and `UV_READABLE` in `uv_poll_event` (uv.h).
  const UV_POLL: c_int = 8;
  const UV_READABLE: c_int = 1;

  fn uv() -> Option<&'static Uv> {
    static UV: OnceLock<Option<Uv>> = OnceLock::new();
    UV.get_or_init(|| {
      let find = |name: &[u8]| {
        // SAFETY: `name` is NUL-terminated; RTLD_DEFAULT searches the symbols already loaded.
        let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr().cast()) };
        (!symbol.is_null()).then_some(symbol)
      };
      // SAFETY: each symbol is libuv's function of that name, whose C signature (uv.h) is the
      // field's type.
      unsafe {
        Some(Uv {
          handle_size: std::mem::transmute::<*mut c_void, HandleSize>(find(b"uv_handle_size\0")?),
          poll_init: std::mem::transmute::<*mut c_void, PollInit>(find(b"uv_poll_init\0")?),
          poll_start: std::mem::transmute::<*mut c_void, PollStart>(find(b"uv_poll_start\0")?),
          poll_stop: std::mem::transmute::<*mut c_void, HandleFn>(find(b"uv_poll_stop\0")?),
          close: std::mem::transmute::<*mut c_void, Close>(find(b"uv_close\0")?),
          unref: std::mem::transmute::<*mut c_void, Unref>(find(b"uv_unref\0")?),
        })
      }
    })
    .as_ref()
  }

  /// The home environment: a threadsafe function into its loop (to start a poll there) and the
  /// polls it runs. Everything here is touched under [`HOME`]'s lock or on the loop's thread.
  struct Home {
    env: usize,
    tsfn: usize,
    polls: Vec<usize>,
  }

  static HOME: Mutex<Option<Home>> = Mutex::new(None);

  /// One poll: a libuv handle (its first field, `data`, points back here) and its process.
  struct Poll {
    process: Arc<Process>,
    /// Set when it closes because the home environment ends.
    ending: Option<Arc<Ending>>,
  }

  /// Makes `env` the home loop if there is none (called when the addon is loaded into it, on its
  /// thread). Fails quietly: the threads read instead.
  pub fn adopt(env: sys::napi_env) {
    if uv().is_none() {
      return;
    }
    let mut home = HOME.lock();
    if home.is_some() {
      return;
    }
    let mut tsfn = ptr::null_mut();
    let mut name = ptr::null_mut();
    // SAFETY: `env` is the calling environment, on its thread; the name is a valid UTF-8 buffer
    // of the given length; `start_poll` is the call-js callback, and a null JS function is
    // allowed with one.
    unsafe {
      let label = "code-mode sandbox reports";
      if sys::napi_create_string_utf8(env, label.as_ptr().cast(), label.len() as isize, &mut name)
        != sys::Status::napi_ok
        || sys::napi_create_threadsafe_function(
          env,
          ptr::null_mut(),
          ptr::null_mut(),
          name,
          0,
          1,
          ptr::null_mut(),
          None,
          ptr::null_mut(),
          Some(start_poll),
          &mut tsfn,
        ) != sys::Status::napi_ok
      {
        return;
      }
      // Weak: the polls never keep Node alive (parked cells do not).
      sys::napi_unref_threadsafe_function(env, tsfn);
      // Asynchronous: Node waits for the polls' close callbacks before it closes the loop.
      if sys::napi_add_async_cleanup_hook(env, Some(env_ending), ptr::null_mut(), ptr::null_mut())
        != sys::Status::napi_ok
      {
        sys::napi_release_threadsafe_function(tsfn, sys::ThreadsafeFunctionReleaseMode::release);
        return;
      }
    }
    *home = Some(Home {
      env: env as usize,
      tsfn: tsfn as usize,
      polls: Vec::new(),
    });
  }

  /// A process the home loop is asked to poll; if the loop never takes it (its environment
  /// ended first), a thread reads instead.
  struct Watch(Option<Arc<Process>>);

  impl Drop for Watch {
    fn drop(&mut self) {
      if let Some(process) = self.0.take() {
        let _ = read_on_a_thread(&process);
      }
    }
  }

  /// Asks the home loop to poll `process` (any thread); false when there is no home loop.
  pub fn watch(process: &Arc<Process>) -> bool {
    if process.inbox.is_none() {
      return false;
    }
    let home = HOME.lock();
    let Some(home) = home.as_ref() else {
      return false;
    };
    let watch = Box::into_raw(Box::new(Watch(Some(process.clone()))));
    // SAFETY: the function is live while it is in `HOME` (released only under this lock);
    // `watch` is handed over to `start_poll`, or taken back below.
    let status = unsafe {
      sys::napi_call_threadsafe_function(
        home.tsfn as sys::napi_threadsafe_function,
        watch.cast(),
        sys::ThreadsafeFunctionCallMode::nonblocking,
      )
    };
    if status != sys::Status::napi_ok {
      // SAFETY: not handed over; ours again. Its drop starts the reading thread.
      drop(unsafe { Box::from_raw(watch) });
    }
    true
  }

  /// On the home loop's thread (or with a null env while its function is torn down): starts
  /// polling a process.
  unsafe extern "C" fn start_poll(
    env: sys::napi_env,
    _callback: sys::napi_value,
    _context: *mut c_void,
    data: *mut c_void,
  ) {
    // SAFETY: `data` is the `Watch` that `watch` handed over, once.
    let mut watch = unsafe { Box::from_raw(data.cast::<Watch>()) };
    let (Some(uv), false) = (uv(), env.is_null()) else {
      return;
    };
    let mut home = HOME.lock();
    let Some(home) = home.as_mut().filter(|home| home.env == env as usize) else {
      return;
    };
    let mut event_loop = ptr::null_mut();
    // SAFETY: `env` is the live environment this callback runs in.
    if unsafe { sys::napi_get_uv_event_loop(env, &mut event_loop) } != sys::Status::napi_ok {
      return;
    }
    let Some(process) = watch.0.take() else {
      return;
    };
    let fd = match process.inbox.as_ref() {
      Some(inbox) => inbox.file.as_raw_fd(),
      None => return,
    };
    // SAFETY: the handle is zeroed memory of libuv's size for a poll handle, freed only in its
    // close callback; its `data` (the first field of every handle) owns a `Poll`; the loop is
    // this thread's; the fd stays open while the `Poll` holds its process.
    unsafe {
      let handle = libc::calloc(1, (uv.handle_size)(UV_POLL));
      if handle.is_null() {
        watch.0 = Some(process);
        return;
      }
      *handle.cast::<*mut Poll>() = Box::into_raw(Box::new(Poll {
        process: process.clone(),
        ending: None,
      }));
      if (uv.poll_init)(event_loop.cast(), handle, fd) != 0 {
        drop(Box::from_raw(*handle.cast::<*mut Poll>()));
        libc::free(handle);
        watch.0 = Some(process);
        return;
      }
      if (uv.poll_start)(handle, UV_READABLE, on_readable) != 0 {
        (uv.close)(handle, on_closed);
        watch.0 = Some(process);
        return;
      }
      (uv.unref)(handle);
      home.polls.push(handle as usize);
    }
    // Reports that came before the poll started are read on the loop's next turn (the pipe is
    // readable, and libuv polls level-triggered).
  }

  /// The pipe is readable (or closed): dispatch what came, on the loop's thread.
  unsafe extern "C" fn on_readable(handle: *mut c_void, status: c_int, _events: c_int) {
    // SAFETY: the handle's `data` is its `Poll` until `on_closed`.
    let process = unsafe { (**handle.cast::<*mut Poll>()).process.clone() };
    if status < 0 {
      // libuv stopped polling it (an error on the descriptor): a thread reads from here on.
      stop(handle);
      let _ = read_on_a_thread(&process);
      return;
    }
    match guarded_pump(&process, Reader::Loop) {
      Pumped::Open => {}
      Pumped::JustClosed => {
        stop(handle);
        died_elsewhere(&process);
      }
      Pumped::Done => stop(handle),
    }
  }

  /// Stops and closes a poll (on the loop's thread).
  fn stop(handle: *mut c_void) {
    let Some(uv) = uv() else { return };
    if let Some(home) = HOME.lock().as_mut() {
      home.polls.retain(|&h| h != handle as usize);
    }
    // SAFETY: `handle` is a started poll handle of this thread's loop, closed once (it has just
    // left the list of polls, which is the only other way to it).
    unsafe {
      (uv.poll_stop)(handle);
      (uv.close)(handle, on_closed);
    }
  }

  unsafe extern "C" fn on_closed(handle: *mut c_void) {
    // SAFETY: closed handles are ours (`start_poll`): free the `Poll`, then the handle.
    let poll = unsafe {
      let poll = Box::from_raw(*handle.cast::<*mut Poll>());
      libc::free(handle);
      poll
    };
    if let Some(ending) = &poll.ending
      && ending.closing.fetch_sub(1, Ordering::AcqRel) == 1
    {
      ending.done();
    }
  }

  /// The home environment is ending: its polls close and threads read their processes; later
  /// processes are read by threads, or by the next environment that loads the addon. Node waits
  /// (the hook's `handle`) until the last of those polls has closed.
  unsafe extern "C" fn env_ending(handle: sys::napi_async_cleanup_hook_handle, _arg: *mut c_void) {
    let home = HOME.lock().take();
    let polls = home.as_ref().map_or(&[][..], |home| &home.polls[..]);
    let ending = Arc::new(Ending {
      hook: handle as usize,
      closing: AtomicUsize::new(polls.len()),
    });
    if let Some(home) = home.as_ref() {
      // SAFETY: released once, and no one calls it after: it has left `HOME`.
      unsafe {
        sys::napi_release_threadsafe_function(
          home.tsfn as sys::napi_threadsafe_function,
          sys::ThreadsafeFunctionReleaseMode::release,
        );
      }
    }
    match uv() {
      Some(uv) if !polls.is_empty() => {
        for &poll in polls {
          let poll = poll as *mut c_void;
          // SAFETY: a started poll handle of this loop, in no list now (`HOME` is empty), closed
          // once here; its `Poll` is ours until `on_closed`.
          let process = unsafe {
            let state = &mut **poll.cast::<*mut Poll>();
            state.ending = Some(ending.clone());
            (uv.poll_stop)(poll);
            (uv.close)(poll, on_closed);
            state.process.clone()
          };
          let _ = read_on_a_thread(&process);
        }
      }
      _ => ending.done(),
    }
  }

  /// The home environment's teardown, waiting for its polls to close.
  struct Ending {
    hook: usize,
    closing: AtomicUsize,
  }

  impl Ending {
    /// Lets Node finish the teardown.
    fn done(&self) {
      // SAFETY: the handle Node gave `env_ending`, removed once: by the last poll to close, or
      // at once when there was none.
      unsafe {
        sys::napi_remove_async_cleanup_hook(self.hook as sys::napi_async_cleanup_hook_handle)
      };
    }
  }
}

/// Makes the calling environment the one whose event loop reads the sandboxes' reports, if
/// none does (the addon's load, on that environment's thread). Only Node's own loop: a host that
/// imitates Node's API may export libuv's functions as stubs that abort the process when called
/// (Bun does), so elsewhere threads read.
pub fn adopt(env: &napi::Env) {
  #[cfg(unix)]
  if is_node(env) {
    home::adopt(env.raw());
  }
  #[cfg(not(unix))]
  let _ = env;
}

/// Whether `env` is Node itself: `process.release.name` is `node`, and `process.versions` names
/// no other runtime (Bun and Deno say `node` there too). False when any of it cannot be read.
#[cfg(unix)]
fn is_node(env: &napi::Env) -> bool {
  use napi::bindgen_prelude::{JsObjectValue, Object};
  let read = || -> napi::Result<bool> {
    let process: Object = env.get_global()?.get_named_property("process")?;
    let release: Object = process.get_named_property("release")?;
    let name: Option<String> = release.get_named_property("name")?;
    let versions: Object = process.get_named_property("versions")?;
    Ok(
      name.as_deref() == Some("node")
        && !versions.has_named_property("bun")?
        && !versions.has_named_property("deno")?,
    )
  };
  read().unwrap_or_else(|_| {
    // A getter that threw leaves its exception pending; the addon's load must not throw it.
    let mut error = std::ptr::null_mut();
    // SAFETY: `env` is the calling environment, on its thread.
    unsafe { napi::sys::napi_get_and_clear_last_exception(env.raw(), &mut error) };
    false
  })
}
