//! What every layer of the code-mode runtime shares: the failure a cell ends with (its code,
//! phase and message), how a leg ends, and the wire format between the addon and its sandbox
//! processes.

pub mod error;
pub mod executor;
pub mod injected;
pub mod leg;
pub mod wire;
