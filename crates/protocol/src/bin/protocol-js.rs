//! Writes `lib/generated/protocol.js` from `crates/protocol/src/packed.rs`:
//! `protocol-js [--check] [<workspace root>]` (default: the workspace this crate is in). With
//! `--check` it writes nothing and exits 1 when the file differs.

use code_mode_protocol::packed::{JAVASCRIPT_PATH, javascript};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
  let mut check = false;
  let mut root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
  for arg in std::env::args().skip(1) {
    match arg.as_str() {
      "--check" => check = true,
      _ => root = PathBuf::from(arg),
    }
  }
  let path = root.join(JAVASCRIPT_PATH);
  let wanted = javascript();
  let current = std::fs::read_to_string(&path).unwrap_or_default();
  if current == wanted {
    return ExitCode::SUCCESS;
  }
  if check {
    eprintln!(
      "{JAVASCRIPT_PATH} is stale: run `cargo run -p code-mode-protocol --bin protocol-js` and commit it"
    );
    return ExitCode::FAILURE;
  }
  let written = path
    .parent()
    .map_or(Ok(()), std::fs::create_dir_all)
    .and_then(|()| std::fs::write(&path, wanted));
  match written {
    Ok(()) => {
      println!("wrote {JAVASCRIPT_PATH}");
      ExitCode::SUCCESS
    }
    Err(error) => {
      eprintln!("could not write {}: {error}", path.display());
      ExitCode::FAILURE
    }
  }
}
