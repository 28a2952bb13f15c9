//! The addon ⇄ sandbox-process wire format, defined once for both ends: the addon (the root
//! crate's `src/sandbox/`) writes [`Command`]s and reads [`Report`]s; the sandbox executable
//! (`crates/sandbox`) does the reverse.
//!
//! A frame is a little-endian `u32` length and that many bytes of one message in bincode.
//! Messages on one channel arrive in the order they were written; a leg's events and calls
//! are written before its end, so the addon sees them in that order too.

use crate::error::Failure;
use crate::leg::{Ended, LegTag};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{self, Read};

/// Largest command a sandbox process accepts: a tool result may be a quarter of a 1 GiB heap,
/// and a catalog a few hundred MB; anything larger is a broken peer.
pub const MAX_FRAME: usize = 1 << 30;

/// Largest report the addon accepts from a sandbox process. Honest reports are bounded by the
/// run's limits: a call batch is sent once it holds 16 MiB and one input is at most 64 MiB
/// (`maxToolInputBytes`), a result at most 10 MiB of output and value (`maxOutputBytes`). A
/// process that sends more is broken or compromised, and is treated as dead.
pub const MAX_REPORT: usize = 128 << 20;

/// Process-wide settings, sent first and again whenever the operator changes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
  /// Threads that run guest JavaScript in this process.
  pub worker_threads: u32,
  /// Parked cells this process keeps at most (the addon enforces the process-wide cap).
  pub max_parked_cells: u32,
  /// What every nested `toolCallId` starts with (`cm_<nonce>_`), so pending lists name calls
  /// as the JS layer does.
  pub nested_id_prefix: String,
}

/// The kind of VM a run's cells use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GuestKind {
  /// `tools`, `ALL_TOOLS`, `MCP`, `API`, namespaces, output and timers.
  CodeMode,
  /// `openclaw.tools` and `console.log/warn/error` only.
  ToolSearch,
}

/// A run's limits, as `tools.codeMode` (or Tool Search's mapping of it) resolved them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLimits {
  pub timeout_ms: u32,
  pub memory_limit_bytes: u64,
  pub max_output_bytes: u64,
  pub max_snapshot_bytes: u64,
  pub snapshot_ttl_seconds: u32,
  pub max_tool_input_bytes: u64,
  pub max_pending_tool_calls: u32,
  pub search_default_limit: u32,
  pub max_search_limit: u32,
}

/// One query of a structured `tool_search` (`Command::Search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchQuery {
  pub query: String,
  /// The hits asked for (`None`: the run's default), as the model gave it.
  pub limit: Option<f64>,
}

/// A plugin namespace as one run shows it (its scope already built and checked by the addon).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Namespace {
  pub id: String,
  pub global_name: String,
  /// The scope's data, as JSON text.
  pub data: String,
  /// `(path, catalog index)` of each callable, by call index.
  pub callables: Vec<(Vec<String>, u32)>,
}

/// What a sandbox process must know of a run before its first cell there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
  pub run: u64,
  /// The agent's `runId` (names the run in fault injection and logs).
  pub label: String,
  /// Whose cells these are: the addon's hash of the run's session (its `sessionId`, else its
  /// `sessionKey`, else the run), with the top bit clear. The sandbox's workers are shared fairly
  /// between tenants.
  pub tenant: u64,
  /// A catalog already sent with [`Command::Catalog`].
  pub catalog: u64,
  pub guest: GuestKind,
  pub limits: RunLimits,
  pub namespaces: Vec<Namespace>,
}

/// The program of an exec leg.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Program {
  /// A cell's source, prepared (parsed, checked, TypeScript lowered) in the sandbox.
  Source { code: String, typescript: bool },
  /// Tool Search's `tool_call`: one call of catalog tool `id` with `input` (JSON text), made
  /// as data, never spliced into source.
  Call { id: String, input: String },
}

/// A nested call's outcome: JSON text when `ok`, else the error message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settled {
  pub call: u32,
  pub ok: bool,
  pub payload: Option<String>,
}

/// The data globals of an executor cell: new text, or text this process already has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Data {
  New { id: u64, text: String },
  Known { id: u64 },
}

/// From the addon to a sandbox process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
  Configure(Settings),
  /// A catalog, as the gateway's `CatalogTool[]` JSON text.
  Catalog {
    id: u64,
    tools_json: String,
  },
  /// No run will name this catalog again (its runs keep it while they live).
  ForgetCatalog {
    id: u64,
  },
  Run(Box<RunSpec>),
  /// No new cell will name this run (its cells keep it while they live).
  ForgetRun {
    run: u64,
  },
  /// Starts cell `cell` (a number the addon chose) of `run`.
  Exec {
    run: u64,
    cell: u64,
    leg: LegTag,
    program: Program,
  },
  /// Resumes cell `cell`, parked under `token`; `run` drives it from now on.
  Resume {
    run: u64,
    cell: u64,
    token: String,
    leg: LegTag,
  },
  Settle {
    cell: u64,
    outcomes: Vec<Settled>,
  },
  /// Ends a cell wherever it is (its leg fails `aborted`, or a parked cell is dropped).
  Abort {
    cell: u64,
  },
  /// Tool Search's structured `tool_search`: every query of one call (a batch is one request,
  /// not one per query); answered with JSON text of an array holding each query's hits, in
  /// order.
  Search {
    request: u64,
    run: u64,
    queries: Vec<SearchQuery>,
  },
  /// Compiles an OpenClaw controller (once per process); answered with `Unit` or an error.
  Compile {
    request: u64,
    key: String,
    source: String,
  },
  /// The first leg of an executor cell; answered with the outcome JSON.
  ExecutorStart {
    request: u64,
    cell: u64,
    controller: String,
    data: Data,
    memory_limit_bytes: u64,
    max_pending_tool_calls: u32,
    /// The longest error text the cell may produce (`maxOutputBytes`; 0: the default).
    max_output_bytes: u64,
    source: String,
    location: String,
    timeout_ms: f64,
  },
  /// A later leg of an executor cell; answered with the outcome JSON.
  ExecutorNext {
    request: u64,
    cell: u64,
    settled: String,
    pending: Vec<String>,
    timeout_ms: f64,
  },
  /// Collects a parked executor cell's garbage; answered with the bytes it holds.
  ExecutorPark {
    request: u64,
    cell: u64,
  },
  ExecutorAbort {
    cell: u64,
  },
  ExecutorDispose {
    cell: u64,
  },
  /// For `npm run bench`: median microseconds to prepare `code`; answered with a number.
  Prepare {
    request: u64,
    code: String,
    typescript: bool,
    iterations: u32,
  },
  /// Answered at once (with `Unit`) by the thread that reads the channel: the addon's check
  /// that it still reads.
  Ping {
    request: u64,
  },
  /// Test-only commands; a release sandbox refuses them.
  Testing(Testing),
}

/// Test-only commands (the `testing` feature of both ends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Testing {
  /// Arms a fault by name (`slice`, `bridge`, `off`, `crash`, `abort`) for cells of `run`.
  Fault { kind: String, run: Option<String> },
  /// The next slice of a cell of `run` blocks `ms` without polling the interrupt handler.
  Stall { ms: u32, run: Option<String> },
  /// Answered with the number of worker threads abandoned (stuck in native code).
  Abandoned { request: u64 },
  /// Tries one forbidden operation from inside the sandbox; answered with what happened (if
  /// the process is still alive to answer).
  Probe { request: u64, operation: String },
  /// Sends no heartbeat and answers no ping for `ms`, as a process whose threads all hang would.
  Silence { ms: u32 },
}

/// A request's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Answer {
  Unit,
  Text(String),
  Number(f64),
  Error(String),
  /// An executor leg's outcome, and a completed cell's value beside it.
  Leg(LegAnswer),
}

/// An executor leg's answer: its outcome as JSON (`crate::executor::ExecutorOutcome`) and, for a
/// completed cell, the JSON text of its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LegAnswer {
  pub outcome: String,
  pub value: Option<String>,
}

/// An answer with no value (a boundary, a failure).
impl From<String> for LegAnswer {
  fn from(outcome: String) -> Self {
    LegAnswer {
      outcome,
      value: None,
    }
  }
}

/// What a run's cells did meanwhile, counted in the sandbox and added up by the addon.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
  pub searches: u32,
  pub describes: u32,
  pub calls: u32,
  pub typescript_transforms: u32,
}

/// From a sandbox process to the addon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Report {
  /// Nested calls a cell started (a batch in the layout of `packed::batch`).
  Calls {
    run: u64,
    cell: u64,
    batch: String,
  },
  /// Cancel every nested call the cell still has in flight.
  CancelCalls {
    run: u64,
    cell: u64,
  },
  /// A leg ended, or a parked cell was dropped.
  Ended {
    run: u64,
    ended: Box<Ended>,
    counts: Counts,
  },
  Answer {
    request: u64,
    answer: Answer,
  },
  /// The leg of `request` (an executor leg) started on a worker: its budget runs from now.
  Started {
    request: u64,
  },
  /// Workers stuck in native code past their deadlines were given up on: `frozen` of them are
  /// stopped for good (no CPU), `spinning` still run (where the platform cannot stop one
  /// thread, or it was outside guest work). Totals for this process so far.
  Stuck {
    frozen: u32,
    spinning: u32,
  },
  /// The process is alive and its clock runs (sent every second).
  Heartbeat,
  /// Something the operator should know (a `failed` answer carries its own message).
  Log {
    message: String,
  },
}

impl Report {
  /// What is sent instead of this report when its frame (`bytes` long) is over [`MAX_REPORT`]:
  /// the same request, leg or cell, failed with a message that says so. Honest reports stay far
  /// below it; this keeps one that is not from making the addon end the whole process.
  pub fn over_limit(self, bytes: usize) -> Report {
    let why = format!("a report of {bytes} bytes is over the sandbox's limit of {MAX_REPORT}");
    let too_large = || format!("code mode result is too large to return: {why}");
    match self {
      Report::Answer { request, .. } => Report::Answer {
        request,
        answer: Answer::Error(too_large()),
      },
      Report::Ended { run, ended, counts } => {
        let failure = Failure::new(crate::error::ErrorCode::OutputLimitExceeded, too_large());
        Report::Ended {
          run,
          ended: Box::new(Ended {
            end: Some(crate::leg::LegEnd::Failed(failure)),
            output: Vec::new(),
            // Kept: the addon aborts the calls a completion left running once it is a failure.
            ..*ended
          }),
          counts,
        }
      }
      // The calls never start: the cell's leg ends at its deadline.
      Report::Calls { cell, .. } => Report::Log {
        message: format!("the nested calls of cell {cell} were not sent: {why}"),
      },
      _ => Report::Log {
        message: format!("a report was not sent: {why}"),
      },
    }
  }
}

/// Encodes `report` as one frame of at most [`MAX_REPORT`] bytes (see [`Report::over_limit`]).
pub fn encode_report(report: Report) -> Vec<u8> {
  let frame = encode(&report);
  match frame.len() - FRAME_HEADER {
    bytes if bytes > MAX_REPORT => encode(&report.over_limit(bytes)),
    _ => frame,
  }
}

/// Encodes `message` as one frame.
pub fn encode<T: Serialize>(message: &T) -> Vec<u8> {
  let mut frame = vec![0u8; FRAME_HEADER];
  // Writing into a Vec cannot fail, and every message type here serialises.
  if bincode::serialize_into(&mut frame, message).is_err() {
    frame.truncate(FRAME_HEADER);
  }
  let len = (frame.len() - FRAME_HEADER) as u32;
  frame[..FRAME_HEADER].copy_from_slice(&len.to_le_bytes());
  frame
}

/// The bytes before a frame's body: the body's length, a little-endian `u32`.
pub const FRAME_HEADER: usize = 4;

/// The body length a frame's header gives; an error when it is over `max`.
pub fn body_len(header: [u8; FRAME_HEADER], max: usize) -> io::Result<usize> {
  let len = u32::from_le_bytes(header) as usize;
  if len > max {
    return Err(io::Error::new(
      io::ErrorKind::InvalidData,
      format!("a frame of {len} bytes is over the limit of {max}"),
    ));
  }
  Ok(len)
}

/// Reads one frame's bytes, at most `max` of them; `None` at a clean end of the stream.
pub fn read_frame(reader: &mut impl Read, max: usize) -> io::Result<Option<Vec<u8>>> {
  let mut header = [0u8; FRAME_HEADER];
  match reader.read_exact(&mut header) {
    Ok(()) => {}
    Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
    Err(e) => return Err(e),
  }
  let len = body_len(header, max)?;
  let mut body = vec![0u8; len];
  reader.read_exact(&mut body)?;
  Ok(Some(body))
}

/// Decodes one frame's bytes. A length inside the frame can claim no more than the frame holds
/// (bincode's limit), so a small forged frame cannot make its reader allocate gigabytes.
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> io::Result<T> {
  use bincode::Options;
  bincode::options()
    .with_fixint_encoding()
    .allow_trailing_bytes()
    .with_limit(body.len() as u64)
    .deserialize(body)
    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// A failure as data: a leg that cannot start in the sandbox still ends with a [`Failure`].
pub fn failure_report(run: u64, cell: u64, leg: LegTag, failure: Failure) -> Report {
  Report::Ended {
    run,
    ended: Box::new(Ended {
      cell,
      leg: Some(leg),
      end: Some(crate::leg::LegEnd::Failed(failure)),
      dropped: None,
      token: None,
      output: Vec::new(),
      floating: Vec::new(),
    }),
    counts: Counts::default(),
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::leg::{LegEnd, OutputItem, PendingRequest};

  #[test]
  fn a_report_over_the_limit_fails_what_it_was_for_instead() {
    let huge = "x".repeat(MAX_REPORT);
    let answer = decode::<Report>(
      &encode_report(Report::Answer {
        request: 7,
        answer: Answer::Text(huge.clone()),
      })[4..],
    );
    assert!(matches!(
      answer,
      Ok(Report::Answer { request: 7, answer: Answer::Error(why) }) if why.contains("too large")
    ));
    let ended = Report::Ended {
      run: 1,
      ended: Box::new(Ended {
        cell: 2,
        leg: Some(LegTag {
          id: 3,
          caller_id: None,
        }),
        end: Some(LegEnd::Completed { value: "1".into() }),
        dropped: None,
        token: None,
        output: vec![OutputItem::Text(huge)],
        floating: Vec::new(),
      }),
      counts: Counts::default(),
    };
    match decode::<Report>(&encode_report(ended)[4..]) {
      Ok(Report::Ended { run: 1, ended, .. }) => {
        assert_eq!((ended.cell, ended.output.len()), (2, 0));
        assert!(matches!(
          ended.end,
          Some(LegEnd::Failed(failure)) if failure.code == crate::error::ErrorCode::OutputLimitExceeded
        ));
      }
      other => panic!("{other:?}"),
    }
    // A report within the limit is sent as it is.
    let small = Report::Log {
      message: "hi".into(),
    };
    assert_eq!(encode_report(small.clone()), encode(&small));
  }

  #[test]
  fn frames_round_trip_in_order() {
    let messages = vec![
      Report::Calls {
        run: 1,
        cell: 2,
        batch: "[null,1,0,{\"a\":\"\\ud800\"},0]".into(),
      },
      Report::Ended {
        run: 1,
        ended: Box::new(Ended {
          cell: 2,
          leg: Some(LegTag {
            id: 7,
            caller_id: Some("call_1".into()),
          }),
          end: Some(LegEnd::Waiting {
            token: "cm_x".into(),
            reason: "pending_tools".into(),
            pending: vec![PendingRequest {
              id: "cm_a_2_1".into(),
              method: "call".into(),
              target: Some("openclaw:core:read".into()),
            }],
            snapshot_bytes: 4096,
          }),
          dropped: None,
          token: Some("cm_x".into()),
          output: vec![OutputItem::Text("hi".into()), OutputItem::Json("1".into())],
          floating: vec![(3, 120)],
        }),
        counts: Counts {
          searches: 1,
          ..Counts::default()
        },
      },
      Report::Heartbeat,
    ];
    let mut stream = Vec::new();
    for message in &messages {
      stream.extend(encode(message));
    }
    let mut reader = stream.as_slice();
    let mut read = Vec::new();
    while let Some(frame) = read_frame(&mut reader, MAX_FRAME).unwrap() {
      read.push(decode::<Report>(&frame).unwrap());
    }
    assert_eq!(read, messages);
  }

  #[test]
  fn a_truncated_or_oversized_frame_is_an_error_not_a_message() {
    let frame = encode(&Command::Abort { cell: 3 });
    let mut short = &frame[..frame.len() - 1];
    assert!(read_frame(&mut short, MAX_FRAME).is_err());
    let huge = ((MAX_FRAME + 1) as u32).to_le_bytes();
    assert!(read_frame(&mut &huge[..], MAX_FRAME).is_err());
    let report = ((MAX_REPORT + 1) as u32).to_le_bytes();
    assert!(read_frame(&mut &report[..], MAX_REPORT).is_err());
    // A string claiming a terabyte inside a 20-byte frame is refused, not allocated.
    let mut forged = bincode::serialize(&Report::Log {
      message: String::new(),
    })
    .unwrap();
    let at = forged.len() - 8;
    forged[at..].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(decode::<Report>(&forged).is_err());
    assert!(decode::<Command>(&[0xff, 0xff, 0xff]).is_err());
  }
}
