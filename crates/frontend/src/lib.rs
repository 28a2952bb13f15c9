//! The front end: a cell's source made ready for the VM, outside the sandbox.
//!
//! It parses the cell with swc (`parse`, bounded by a stack floor and the preparation deadline,
//! then in depth by `depth`), refuses module access and syntax that cannot run (`checks`),
//! makes the last expression the completion value (`completion`), lowers TypeScript to
//! JavaScript (`typescript`), and maps executed positions back to the user's lines
//! (`positions`). It never touches QuickJS: its output is a `Program`, plain text and a map.
//!
//! Imports run one way: the entry points here and `javascript`/`typescript` use `parse`,
//! `checks` and `completion`; `parse` uses `guard`, `checks` and `depth`; any of them may use
//! the leaves `program` → `positions` → `wrapper`.

mod checks;
mod completion;
mod depth;
mod guard;
mod javascript;
mod parse;
mod positions;
mod program;
mod typescript;
mod wrapper;

/// Failures, codes and phases, shared with every layer above.
pub use code_mode_protocol::error;

pub use javascript::prepare_javascript;
pub use parse::PREPARE_STACK;
// The fuzzing entry points (`testing` feature) and the tests reach into the parse.
#[cfg(any(test, feature = "testing"))]
pub use parse::parse_wrapped;
pub use positions::user_line_col;
pub use program::{Language, Program};
pub use typescript::prepare_typescript;
#[cfg(any(test, feature = "testing"))]
pub use wrapper::wrap;

use crate::error::{CODE_MODE_NAMES, Failure, LimitNames};

/// Prepares a cell in either language, on a thread with `PREPARE_STACK` of stack. swc is a large
/// parser: if it panics on some input (the fuzzer found such inputs), that is a program it
/// cannot read, reported as such.
pub fn prepare(code: &str, language: Language) -> Result<Program, Failure> {
  prepare_until(code, language, None, &CODE_MODE_NAMES)
}

/// `prepare`, giving up with `timeout` at `deadline`: the TypeScript grammar backtracks, and
/// some short hostile inputs would otherwise parse for minutes on a worker. The failure names
/// the cell and its time limit as `names` say (its host's words).
pub fn prepare_until(
  code: &str,
  language: Language,
  deadline: Option<std::time::Instant>,
  names: &'static LimitNames,
) -> Result<Program, Failure> {
  guard::until(deadline, names, || prepare_now(code, language))
}

fn prepare_now(code: &str, language: Language) -> Result<Program, Failure> {
  // QuickJS reads source as a C string.
  if let Some(at) = code.find('\0') {
    let (line, column) = user_line_col(code, at);
    return Err(Failure::invalid(format!(
      "SyntaxError: the program contains a NUL character; write \\0 instead (line {line}, column {column})"
    )));
  }
  let prepared = std::panic::catch_unwind(|| match language {
    Language::JavaScript => prepare_javascript(code),
    Language::TypeScript => prepare_typescript(code),
  });
  prepared.unwrap_or_else(|_| {
    Err(Failure::invalid(format!(
      "SyntaxError: the {} parser could not read this program",
      language.as_str()
    )))
  })
}

/// For `npm run bench`: median microseconds to prepare `code` over `iterations` runs, measured
/// on a thread with a worker's stack.
pub fn median_prepare_micros(code: String, typescript: bool, iterations: u32) -> f64 {
  let language = if typescript {
    Language::TypeScript
  } else {
    Language::JavaScript
  };
  let measure = move || {
    let mut samples: Vec<f64> = (0..iterations.max(1))
      .map(|_| {
        let started = std::time::Instant::now();
        std::hint::black_box(prepare(&code, language)).ok();
        started.elapsed().as_secs_f64() * 1e6
      })
      .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
  };
  std::thread::Builder::new()
    .stack_size(PREPARE_STACK)
    .spawn(measure)
    .ok()
    .and_then(|thread| thread.join().ok())
    .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests;
