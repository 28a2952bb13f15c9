//! The sandbox at the engine's level, without the addon: a run defined by hand (any guest,
//! including ones no run of the addon could name), cells started on it, and the reports they
//! send. The end-to-end behaviour of runs is tested in the root crate (`src/tests/`), with a
//! sandbox in the test process.

use crate::Sink;
use crate::run::GuestRun;
use code_mode_catalog::building::Building;
use code_mode_engine::{Cell, Ended, Guest, LegEnd, LegTag};
use code_mode_protocol::error::ErrorCode;
use code_mode_protocol::wire::{Program, Report, RunLimits, RunSpec};
use crossbeam_channel::{Receiver, Sender, unbounded};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

struct ChannelSink(Sender<Report>);

impl Sink for ChannelSink {
  fn report(&self, report: Report) {
    let _ = self.0.send(report);
  }
}

static NEXT_CELL: AtomicU64 = AtomicU64::new(1 << 40);

/// One run of `guest` in this process, and the reports of its cells.
struct Harness {
  run: Arc<GuestRun>,
  reports: Receiver<Report>,
}

impl Harness {
  fn new(guest: &'static Guest<GuestRun>, label: &str, timeout_ms: u32) -> Harness {
    let (tx, reports) = unbounded();
    let spec = RunSpec {
      run: 1,
      label: label.into(),
      tenant: NEXT_CELL.fetch_add(1, Ordering::Relaxed),
      catalog: 1,
      guest: code_mode_protocol::wire::GuestKind::CodeMode,
      limits: RunLimits {
        timeout_ms,
        memory_limit_bytes: 64 << 20,
        max_output_bytes: 65536,
        max_snapshot_bytes: 10 << 20,
        snapshot_ttl_seconds: 60,
        max_tool_input_bytes: 8 << 20,
        max_pending_tool_calls: 16,
        search_default_limit: 8,
        max_search_limit: 50,
      },
      namespaces: Vec::new(),
    };
    let building = Arc::new(Building::start(r#"[{"name":"read_file"}]"#.into()));
    let run = Arc::new(GuestRun::new(
      spec,
      guest,
      building,
      Arc::new(ChannelSink(tx)),
    ));
    Harness { run, reports }
  }

  /// Runs a cell to the end of its first leg.
  fn exec(&self, code: &str) -> Ended {
    let cell = NEXT_CELL.fetch_add(1, Ordering::Relaxed);
    let program = Program::Source {
      code: code.into(),
      typescript: false,
    };
    let prepare = crate::prepare(&self.run, cell, program);
    let leg = LegTag {
      id: 1,
      caller_id: None,
    };
    Cell::exec(cell, self.run.clone(), self.run.guest, leg, prepare, |_| {});
    loop {
      match self.reports.recv_timeout(Duration::from_secs(20)) {
        Ok(Report::Ended { ended, .. }) if ended.cell == cell => return *ended,
        Ok(_) => {}
        Err(e) => panic!("no report: {e}"),
      }
    }
  }
}

#[test]
fn a_cell_completes_and_reports_its_end() {
  let h = Harness::new(&crate::bridge::CODE_MODE, "plain", 2000);
  let ended = h.exec("text('hi'); 20 + 22");
  assert_eq!(ended.end, Some(LegEnd::Completed { value: "42".into() }));
  assert_eq!(
    ended.output,
    vec![code_mode_protocol::leg::OutputItem::Text("hi".into())]
  );
}

/// `cargo test --release -- --ignored --nocapture profile_costs`: where a trivial exec's time goes.
#[test]
#[ignore]
fn profile_costs() {
  use std::time::Instant;
  let median = |mut v: Vec<f64>| {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
  };
  let warm: Vec<f64> = (0..300)
    .map(|_| {
      let t = Instant::now();
      let vm = code_mode_engine::vm::Vm::warm(&crate::bridge::CODE_MODE).unwrap();
      let built = t.elapsed().as_secs_f64() * 1e6;
      drop(vm);
      built
    })
    .collect();
  let drops: Vec<f64> = (0..300)
    .map(|_| {
      let vm = code_mode_engine::vm::Vm::warm(&crate::bridge::CODE_MODE).unwrap();
      let t = Instant::now();
      drop(vm);
      t.elapsed().as_secs_f64() * 1e6
    })
    .collect();
  let bare: Vec<f64> = (0..300)
    .map(|_| {
      let t = Instant::now();
      let rt = rquickjs::Runtime::new().unwrap();
      let ctx = rquickjs::Context::full(&rt).unwrap();
      let built = t.elapsed().as_secs_f64() * 1e6;
      drop(ctx);
      drop(rt);
      built
    })
    .collect();
  println!("bare runtime + full context {:.1} µs", median(bare));
  {
    let rt = rquickjs::Runtime::new().unwrap();
    let ctx = rquickjs::Context::full(&rt).unwrap();
    rt.run_gc();
    let usage = rt.memory_usage();
    println!(
      "a bare full context holds {} bytes in {} blocks",
      usage.malloc_size, usage.malloc_count
    );
    drop(ctx);
  }
  let vm = code_mode_engine::vm::Vm::warm(&crate::bridge::CODE_MODE).unwrap();
  println!("a warm VM holds {} bytes", vm.memory_used());
  drop(vm);
  let h = Harness::new(&crate::bridge::CODE_MODE, "profile", 2000);
  for _ in 0..200 {
    h.exec("1 + 1");
  }
  let execs: Vec<f64> = (0..2000)
    .map(|_| {
      let t = Instant::now();
      h.exec("1 + 1");
      t.elapsed().as_secs_f64() * 1e6
    })
    .collect();
  println!(
    "warm VM {:.1} µs, drop {:.1} µs, trivial exec through the sandbox's reports {:.1} µs",
    median(warm),
    median(drops),
    median(execs)
  );
}

#[test]
fn a_vm_whose_prelude_load_outlives_the_slice_deadline_fails_timeout() {
  use code_mode_engine::Guest;
  use code_mode_engine::testing::{Fault, arm};
  // Code mode's guest under another name: no warm VM of it exists, so the cell's first slice
  // builds its VM, under the slice's deadline.
  static COLD: std::sync::LazyLock<Guest<GuestRun>> = std::sync::LazyLock::new(|| {
    Guest::new(
      crate::bridge::CODE_MODE.prelude,
      crate::bridge::CODE_MODE.install,
    )
  });
  let h = Harness::new(&COLD, "cold-vm", 100);
  // The slice starts past its deadline (not long enough for the watchdog), as under heavy load:
  // the prelude's first interrupt poll ends it.
  arm(
    Fault::StallSlice(Duration::from_millis(300)),
    Some("cold-vm".into()),
  );
  let ended = h.exec("1");
  assert!(
    matches!(&ended.end, Some(LegEnd::Failed(f)) if f.code == ErrorCode::Timeout),
    "{ended:?}"
  );
}

/// `valgrind --tool=callgrind <test binary> vm_lifecycle --ignored`: the instructions the warm
/// pool spends per exec (build a VM, free it), free of the timing noise of a shared machine.
#[test]
#[ignore = "profiling aid"]
fn vm_lifecycle() {
  for _ in 0..2000 {
    drop(code_mode_engine::vm::Vm::warm(&crate::bridge::CODE_MODE).unwrap());
  }
}
