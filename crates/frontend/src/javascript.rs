//! JavaScript cells: parse, check, insert the completion `return`.

use super::checks::{cell_body, check_module_access};
use super::completion::insert_return;
use super::parse::parse_wrapped;
use super::positions::PositionMap;
use super::program::{Language, Program};
use super::wrapper::wrap;
use crate::error::Failure;
use swc_core::ecma::ast::Program as Ast;

/// Prepares a JavaScript cell: parse, check, insert the completion `return`.
pub fn prepare_javascript(user: &str) -> Result<Program, Failure> {
  let wrapped = wrap(user);
  let script = parse_wrapped(user, &wrapped, Language::JavaScript, Failure::invalid)?;
  let stmts = cell_body(user, &wrapped, &script)?;
  check_module_access(user, &Ast::Script(script.clone()))?;
  let (code, insertions) = insert_return(&wrapped, stmts);
  let positions = PositionMap::inserted(user, &code, insertions);
  Ok(Program {
    code,
    language: Language::JavaScript,
    positions,
  })
}
