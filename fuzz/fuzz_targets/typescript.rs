#![no_main]
// cargo fuzz run typescript (see the README's Fuzzing section).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
  if let Ok(text) = std::str::from_utf8(data) {
    openclaw_code_mode::fuzzing::typescript(text);
  }
});
