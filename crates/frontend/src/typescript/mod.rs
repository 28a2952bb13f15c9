//! TypeScript cells: swc's parser and TypeScript transform, with positions mapped back.
//!
//! One parse serves everything: the module-access check, the completion value (the last
//! expression statement becomes a `return` in the AST) and the transform (types erased; enums,
//! namespaces and parameter properties lowered). The emitter records, for each token it writes,
//! the source position it came from; that list is the map from the executed code back to the
//! user's lines. No type checking, no module resolution.
//!
//! Where swc's transform and `tsc` disagree on a script, small passes close the gap (all
//! checked against `tsc` by `__test__/typescript.spec.ts`): namespace declarations that merge
//! (`namespaces`), `import A = NS.B` aliases (`aliases`), and `accessor` fields, which QuickJS
//! cannot run (`accessors`).

mod accessors;
mod aliases;
mod namespaces;

use super::checks::{cell_body, check_module_access, check_supported};
use super::completion::{cell_stmts, return_last};
use super::guard;
use super::parse::parse_wrapped;
use super::positions::PositionMap;
use super::program::{Language, Program};
use super::wrapper::{START, wrap};
use crate::error::Failure;
use accessors::LowerAccessors;
use aliases::{alias_imports, drop_type_aliases};
use namespaces::{MergeNamespaces, NamespaceParams};
use swc_core::common::{
  BytePos, GLOBALS, Globals, Mark, SourceMap, source_map::SmallPos, sync::Lrc,
};
use swc_core::ecma::ast::{EsVersion, Program as Ast};
use swc_core::ecma::codegen::{Config, Emitter, text_writer::JsWriter};
use swc_core::ecma::transforms::base::{
  fixer::fixer,
  helpers::{HELPERS, Helpers, inject_helpers},
  hygiene::hygiene,
  resolver,
};
use swc_core::ecma::transforms::typescript::{Config as TsConfig, typescript};
use swc_core::ecma::visit::VisitMutWith;

fn failure(message: String) -> Failure {
  Failure::invalid(format!("typescript transform failed: {message}"))
}

/// `Err(timeout)` once the preparation deadline has passed (see `guard::past_deadline`).
fn in_time() -> Result<(), Failure> {
  if guard::past_deadline() {
    return Err(guard::out_of_time("its TypeScript was transformed"));
  }
  Ok(())
}

/// Transforms a TypeScript cell into the wrapped JavaScript the VM runs.
pub fn prepare_typescript(user: &str) -> Result<Program, Failure> {
  // Aliases are rewritten in place, byte for byte, so every offset (and so every line and
  // column reported below) is the same in `user` and in the original text.
  let original = user;
  let aliased = alias_imports(user);
  let user = aliased.as_ref().map_or(user, |(text, _)| text.as_str());
  let aliases = aliased.as_ref().map_or(&[][..], |(_, at)| at.as_slice());

  let wrapped = wrap(user);
  let mut script = parse_wrapped(user, &wrapped, Language::TypeScript, failure)?;
  cell_body(user, &wrapped, &script)?;
  check_module_access(user, &Ast::Script(script.clone()))?;
  check_supported(user, &script).map_err(failure)?;

  // Completion value, in the AST: its span (and so the position map) stays.
  return_last(&mut script);

  // Every pass is linear in the cell but not cheap, or gives up at the deadline itself (swc's
  // scope walks, see `guard::until`; tests.rs counts both): the deadline is checked between them.
  in_time()?;
  let cm: Lrc<SourceMap> = Default::default();
  let (code, pairs) = GLOBALS.set(&Globals::new(), || {
    let unresolved = Mark::new();
    let top_level = Mark::new();
    HELPERS.set(&Helpers::new(false), || {
      script.visit_mut_with(&mut resolver(unresolved, top_level, true));
      in_time()?;
      script.visit_mut_with(&mut MergeNamespaces);
      if let Some(body) = cell_stmts(&mut script) {
        drop_type_aliases(body, aliases);
      }
      let mut program = Ast::Script(script);
      // Enums stay objects that are read at run time, as `tsc` emits them (swc would inline
      // `E.A`, which a script that patches its enum can tell apart); const enums still fold.
      let config = TsConfig {
        native_class_properties: true,
        ts_enum_is_mutable: true,
        ..Default::default()
      };
      program.mutate(&mut typescript(config, unresolved, top_level));
      in_time()?;
      program.visit_mut_with(&mut LowerAccessors);
      program.visit_mut_with(&mut NamespaceParams);
      program.mutate(&mut inject_helpers(unresolved));
      in_time()?;
      program.mutate(&mut hygiene());
      in_time()?;
      program.mutate(&mut fixer(None));
      in_time()?;
      emit(&cm, &program, wrapped.len())
    })
  })?;
  in_time()?;

  // The emitted program must still be exactly one script with no module access.
  let output = parse_wrapped(user, &code, Language::JavaScript, failure);
  // A parse cut short by the deadline checked nothing.
  in_time()?;
  if let Ok(script) = &output {
    check_module_access(user, &Ast::Script(script.clone()))?;
  }
  let pairs = pairs
    .into_iter()
    .filter(|(pos, _)| !pos.is_dummy() && pos.0 >= START)
    .map(|(pos, lc)| (lc.line, lc.col, (pos.to_u32() - START) as usize))
    .collect();
  Ok(Program {
    code,
    language: Language::TypeScript,
    positions: PositionMap::generated(original, pairs),
  })
}

type Emitted = (String, Vec<(BytePos, swc_core::common::LineCol)>);

/// JavaScript text of the program and, per emitted token, its source position.
fn emit(cm: &Lrc<SourceMap>, program: &Ast, size: usize) -> Result<Emitted, Failure> {
  let mut buf = Vec::with_capacity(size);
  let mut pairs = Vec::new();
  {
    let mut emitter = Emitter {
      cfg: Config::default()
        .with_target(EsVersion::latest())
        .with_ascii_only(true),
      comments: None,
      cm: cm.clone(),
      wr: JsWriter::new(cm.clone(), "\n", &mut buf, Some(&mut pairs)),
    };
    emitter
      .emit_program(program)
      .map_err(|e| failure(format!("could not emit JavaScript: {e}")))?;
  }
  let code = String::from_utf8(buf).map_err(|_| failure("emitted code was not UTF-8".into()))?;
  Ok((code, pairs))
}

#[cfg(test)]
mod tests;
