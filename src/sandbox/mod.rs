//! Source preparation: parse, checks, completion rewrite and TypeScript transform.

pub mod depth;
pub mod source;
