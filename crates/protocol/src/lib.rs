//! What every layer of the code-mode runtime shares: the failure a cell ends with (its code,
//! phase and message).

pub mod error;
