#![no_main]
// cargo fuzz run json_bridge (see CONTRIBUTING.md, "Fuzzing").
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
  if let Ok(text) = std::str::from_utf8(data) {
    code_mode_sandbox::fuzzing::json_bridge(text);
  }
});
