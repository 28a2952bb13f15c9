//! What every layer of the code-mode runtime shares: the failure a cell ends with (its code,
//! phase and message), how a leg ends, the wire format between the addon and its sandbox
//! processes, and the packed formats between the addon and its JavaScript layer (`packed`).

pub mod error;
pub mod executor;
pub mod injected;
pub mod leg;
pub mod packed;
pub mod parsed;
pub mod wire;

/// Largest cell source accepted, in bytes of UTF-8. The addon's exec checks it
/// (`src/run/validate.rs`), the sandbox process again (`crates/sandbox/src/lib.rs`), and the JS
/// layer has it from `lib/generated/protocol.js` (`packed`) to bound what it reads or sends.
pub const MAX_CODE_BYTES: usize = 1 << 20;
