//! TypeScript preparation: the transform, the gaps to `tsc` it closes, and positions.

use super::*;
use swc_core::ecma::transforms::base::rename::rename_checks;

fn ts(code: &str) -> Program {
  prepare_typescript(code).unwrap_or_else(|e| panic!("{code}: {e}"))
}

#[test]
fn strips_types_and_returns_the_last_expression() {
  let p = ts("const a: number = 1;\ninterface X { y: string }\na + 1 as number");
  assert!(p.code.contains("const a = 1"), "{}", p.code);
  assert!(
    p.code.contains("return (a + 1)") || p.code.contains("return a + 1"),
    "{}",
    p.code
  );
  assert!(!p.code.contains("interface"));
}

#[test]
fn lowers_enums_namespaces_and_parameter_properties() {
  let p = ts(
    "enum Color { Red, Green }\nnamespace NS { export const x = 1 }\nclass P { constructor(private v: number) {} }\nColor.Green",
  );
  assert!(
    p.code.contains("Color[\"Green\"]") || p.code.contains("Color.Green"),
    "{}",
    p.code
  );
  assert!(p.code.contains("this.v = v"), "{}", p.code);
}

#[test]
fn type_only_imports_are_module_access() {
  let err = prepare_typescript("import type { X } from './x';\nconst y: X = 1").unwrap_err();
  assert!(
    err.message.starts_with("module access is not allowed"),
    "{}",
    err.message
  );
}

#[test]
fn diagnostics_name_the_user_line() {
  let err = prepare_typescript("const a: number = 1;\nlet b: = 2;").unwrap_err();
  assert!(
    err.message.starts_with("typescript transform failed: "),
    "{}",
    err.message
  );
  assert!(err.message.contains("line 2"), "{}", err.message);
}

#[test]
fn positions_map_to_the_user_source() {
  let p = ts("enum E { A }\nconst x: number = 1;\n  null!.foo;");
  let line = p.code.lines().position(|l| l.contains("null.foo")).unwrap() as u32 + 1;
  let col = p
    .code
    .lines()
    .nth(line as usize - 1)
    .unwrap()
    .find("null")
    .unwrap() as u32
    + 1;
  assert_eq!(
    p.positions.user_position(line, col).map(|(l, _)| l),
    Some(3)
  );
}

/// Runs a prepared cell in a bare QuickJS context; the JSON of its value, or the error.
fn run(code: &str) -> String {
  let program = ts(code);
  let rt = rquickjs::Runtime::new().unwrap();
  let ctx = rquickjs::Context::full(&rt).unwrap();
  ctx.with(|ctx| {
    let main: rquickjs::Function = ctx
      .eval(program.code.as_str())
      .unwrap_or_else(|e| panic!("{}: {e}", program.code));
    ctx.globals().set("main", main).unwrap();
    let _: rquickjs::Value = ctx
      .eval(
        "main().then((v) => { globalThis.out = JSON.stringify(v) ?? 'null' }, \
         (e) => { globalThis.out = 'error: ' + e })",
      )
      .unwrap();
    while ctx.execute_pending_job() {}
    ctx.globals().get::<_, String>("out").unwrap()
  })
}

#[test]
fn merged_namespaces_share_their_exports() {
  assert_eq!(
    run(
      "namespace N { export const a = 1 }\nnamespace N { export const b = a + 1 }\nreturn [N.a, N.b]"
    ),
    "[1,2]"
  );
  // Writes, destructuring assignments and shorthand properties go to the namespace too.
  assert_eq!(
    run(
      "namespace C { export let n = 0, m = 5 }\n\
       namespace C { export function bump() { n++; n += 1; [n, m] = [m, n]; ({ m } = { m: 9 }); return { n, m } } }\n\
       return [C.bump(), C.n, C.m]"
    ),
    r#"[{"n":5,"m":9},5,9]"#
  );
  // Locals, parameters and non-exported members are not the namespace's.
  assert_eq!(
    run(
      "const a = 'outer';\nnamespace N { export const a = 'exported'; const hidden = 1 }\n\
       namespace N { export const f = (a: string) => a; export const g = () => [a, typeof hidden] }\n\
       return [a, N.f('param'), N.g()]"
    ),
    r#"["outer","param",["exported","undefined"]]"#
  );
  // Inside an enum, its own members come first.
  assert_eq!(
    run(
      "namespace N { export const A = 100 }\n\
       namespace N { export enum E { A = 1, B = A + 1 } export const c = A }\n\
       return [N.E.B, N.c]"
    ),
    "[2,100]"
  );
  // Nested and dotted declarations merge level by level.
  assert_eq!(
    run(
      "namespace A { export const k = 'A'; export namespace B { export const y = 1 } }\n\
       namespace A.B { export const z = y + 1; export const w = k }\n\
       return [A.B.z, A.B.w]"
    ),
    r#"[2,"A"]"#
  );
  // The innermost namespace exporting a name wins, even one declared later (as in tsc).
  assert_eq!(
    run(
      "namespace A { export const x = 'A' }\n\
       namespace A { export namespace B { export const early = x } }\n\
       namespace A { export namespace B { export const x = 'B' } export const late = x }\n\
       return [A.B.early ?? 'unset', A.late]"
    ),
    r#"["unset","A"]"#
  );
}

#[test]
fn enum_members_are_read_at_run_time() {
  assert_eq!(
    run(
      "enum E { A = 1, B = A * 2 }\nObject.assign(E, { A: 5 });\nconst enum C { X = 3 }\n[E.A, E.B, E[1], C.X]"
    ),
    r#"[5,2,"A",3]"#
  );
}

#[test]
fn namespace_members_keep_the_namespace_name() {
  assert_eq!(
    run(
      "namespace Model { export class Model {} export const made = new Model() }\n\
       namespace Util { export function Util() { return Util.name } }\n\
       [Model.Model.name, Model.made.constructor.name, Util.Util()]"
    ),
    r#"["Model","Model","Util"]"#
  );
}

#[test]
fn import_aliases_are_declarations() {
  assert_eq!(
    run("namespace NS { export namespace In { export const v = 7 } }\nimport I = NS.In;\nI.v * 2"),
    "14"
  );
  // An alias read only as a type is dropped: its target may have no runtime value.
  assert_eq!(
    run(
      "namespace T { export interface U { n: number } }\nimport U = T.U;\nimport V = U;\n\
       const u: V = { n: 1 };\nu"
    ),
    r#"{"n":1}"#
  );
  assert!(ts("import A = B.C;\nA.d").code.contains("var A = B.C"));
  for code in [
    "import fs = require('fs')",
    "export import X = N.Y",
    "import type X = N.Y",
  ] {
    let err = prepare_typescript(code).unwrap_err();
    assert!(
      err.message.starts_with("module access is not allowed"),
      "{code}: {}",
      err.message
    );
  }
}

#[test]
fn long_alias_chains_are_dropped_in_linear_time() {
  // Each alias read only by the next: dropping them one round at a time was cubic (minutes).
  let chain = |n: usize, last: &str| {
    let mut code = String::from("namespace N { export const x = 7 }\nimport a0 = N.x;\n");
    for i in 1..n {
      code.push_str(&format!("import a{i} = a{};\n", i - 1));
    }
    code + last
  };
  let started = std::time::Instant::now();
  let unused = ts(&chain(20_000, "1"));
  assert!(!unused.code.contains("a0"), "{}", &unused.code[..200]);
  assert_eq!(run(&chain(2_000, "a1999")), "7");
  assert!(started.elapsed() < std::time::Duration::from_secs(60));
  // Aliases that read each other stay, as before.
  assert!(
    ts("import a = b;\nimport b = a;\n1")
      .code
      .contains("var a = b")
  );
}

#[test]
fn auto_accessors_are_lowered() {
  assert_eq!(
    run(
      "class A { accessor x = 1; static accessor n: number = 0; accessor #p = 2; accessor 'k-1' = 3;\n\
       constructor() { A.n++ } p() { return this.#p } }\n\
       class B extends A {}\nconst a = new A(); a.x = 5; new B();\n\
       [a.x, A.n, B.n, a.p(), (a as any)['k-1'], Object.keys(a)]"
    ),
    r#"[5,2,2,2,3,[]]"#
  );
  assert_eq!(
    run(
      "abstract class W { abstract accessor w: number }\nclass X extends W { accessor w = 4 }\nnew X().w"
    ),
    "4"
  );
}

#[test]
fn unsupported_syntax_is_named() {
  let err = prepare_typescript("const x = 1;\n@sealed class A {}").unwrap_err();
  assert_eq!(
    err.message,
    "typescript transform failed: decorators are not supported (line 2, column 1)"
  );
  let err = prepare_typescript("class A {\n  accessor [k] = 1\n}").unwrap_err();
  assert_eq!(
    err.message,
    "typescript transform failed: `accessor` fields with computed names are not supported \
     (line 2, column 3)"
  );
}

/// Work a TypeScript preparation does, counted rather than timed: bytes allocated on this
/// thread, and ids the renamer (swc's hygiene) examined for conflicts.
fn work(code: &str) -> (u64, u64) {
  let (bytes, checks) = (crate::tests::allocated(), rename_checks());
  ts(code);
  (crate::tests::allocated() - bytes, rename_checks() - checks)
}

// A cell of many declarations costs in proportion to its size. swc once scanned every enum
// member at each enum declaration (20,000 merged `enum E { … }` took seconds), and its renamer
// compared each binding with every earlier binding of that name in sibling scopes (20,000
// `(x) => x` took as long); vendor/patches/ has both fixes. Four times the declarations may
// cost about four times the work, not sixteen.
#[test]
fn preparation_work_grows_with_the_cell_not_its_square() {
  type Shape = (&'static str, fn(usize) -> String);
  let shapes: [Shape; 5] = [
    ("merged enums", |i| format!("enum E {{ A{i} = {i} }}\n")),
    ("merged enums in a namespace", |i| {
      format!("namespace N {{ export enum E {{ A{i} = {i} }} }}\n")
    }),
    ("one parameter name", |i| {
      format!("const f{i} = (x: number) => x;\n")
    }),
    ("one block-scoped name", |i| format!("{{ let x = {i}; }}\n")),
    ("namespaces", |i| {
      format!("namespace N{i} {{ export const a = {i} }}\n")
    }),
  ];
  for (shape, declaration) in shapes {
    let cell = |n: usize| (0..n).map(declaration).collect::<String>() + "1";
    let (small, large) = (work(&cell(500)), work(&cell(2_000)));
    assert!(
      large.0 <= small.0 * 5,
      "{shape}: {} bytes allocated for 500 declarations, {} for 2,000",
      small.0,
      large.0
    );
    assert!(
      large.1 <= small.1 * 5 + 1_000,
      "{shape}: the renamer examined {} ids for 500 declarations, {} for 2,000",
      small.1,
      large.1
    );
  }
}

// swc's resolver looks every reference up through its enclosing scopes and its renamer unites
// each scope's bindings with its descendants': both cost a program's size times its nesting
// depth (seconds for a hostile cell well under 1 MiB). Past the preparation deadline they give
// up (a patch of the vendored swc_ecma_transforms_base) and `in_time` throws the tree away.
// Counted in bytes allocated, with a deadline that has already passed when they start.
#[test]
fn swc_walks_that_outgrow_the_cell_give_up_at_the_deadline() {
  use swc_core::ecma::ast::Script;
  use swc_core::ecma::transforms::base::deadline;
  let code = "(a: number) => ".repeat(100)
    + "["
    + &(0..3_000)
      .map(|i| format!("x{i}"))
      .collect::<Vec<_>>()
      .join(",")
    + "]";
  let passes = |script: Script| {
    let bytes = crate::tests::allocated();
    GLOBALS.set(&Globals::new(), || {
      let (unresolved, top_level) = (Mark::new(), Mark::new());
      let mut program = Ast::Script(script);
      program.visit_mut_with(&mut resolver(unresolved, top_level, true));
      program.mutate(&mut hygiene());
    });
    crate::tests::allocated() - bytes
  };
  let (whole, cut) = std::thread::Builder::new()
    .stack_size(crate::PREPARE_STACK)
    .spawn(move || {
      let wrapped = wrap(&code);
      let script = parse_wrapped(&code, &wrapped, Language::TypeScript, failure).unwrap();
      let whole = passes(script.clone());
      let outer = deadline::set(Some(std::time::Instant::now()));
      let cut = passes(script);
      deadline::set(outer);
      (whole, cut)
    })
    .unwrap()
    .join()
    .unwrap();
  assert!(
    cut * 3 < whole,
    "{cut} bytes past the deadline, {whole} without one"
  );
}
