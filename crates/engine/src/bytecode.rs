//! Guest preludes compiled once to QuickJS bytecode. Parsing ~300 lines of JavaScript cost
//! most of a VM's start-up; reading bytecode is a copy and a relink. Also [`eval_script`], an
//! evaluation of source text that may hold NUL characters. All of this module's unsafe code is
//! here, each block with the contract it relies on.

use rquickjs::{Context, Ctx, Error, Result, Runtime, Value, qjs};
use std::ffi::CString;
use std::sync::OnceLock;

/// Compiles `source` (a strict global script) to bytecode in a scratch runtime.
fn compile(source: &str, filename: &str) -> Result<Vec<u8>> {
  compile_script(source, filename, true, false).map_err(|_| Error::Unknown)
}

/// Compiles a global script to bytecode in a scratch runtime: `strict` or sloppy, and with its
/// line table (`debug`, so its frames keep their `filename:line:column` in stack traces) or
/// without. A source QuickJS refuses gives its `SyntaxError: …` text.
pub fn compile_script(
  source: &str,
  filename: &str,
  strict: bool,
  debug: bool,
) -> std::result::Result<Vec<u8>, String> {
  let rt = Runtime::new().map_err(|e| e.to_string())?;
  let ctx = Context::full(&rt).map_err(|e| e.to_string())?;
  ctx.with(|ctx| {
    // Preludes and the gateway's controller are refused with a NUL character, as they always
    // were (only a cell's program takes one as source text).
    if source.contains('\0') {
      return Err("the source contains a NUL character".to_string());
    }
    if filename.contains('\0') {
      return Err("the file name contains a NUL character".to_string());
    }
    let strict = if strict { qjs::JS_EVAL_FLAG_STRICT } else { 0 };
    let flags = (qjs::JS_EVAL_TYPE_GLOBAL | strict | qjs::JS_EVAL_FLAG_COMPILE_ONLY) as i32;
    let raw = ctx.as_raw().as_ptr();
    let Ok(function) = eval_script(&ctx, source, filename, flags) else {
      let error = ctx.catch();
      let text = error
        .as_exception()
        .map(|e| {
          let name: String = e.get("name").unwrap_or_else(|_| "Error".into());
          format!("{name}: {}", e.message().unwrap_or_default())
        })
        .unwrap_or_else(|| "QuickJS refused the source".into());
      return Err(text);
    };
    let mut size = 0;
    // SAFETY: `function` is a live compiled-function value of this context; QuickJS allocates
    // the buffer with the context's allocator, and it is freed below with `js_free`.
    let buffer = unsafe {
      qjs::JS_WriteObject(
        raw,
        &mut size,
        function.as_raw(),
        // No line table or source text: a prelude frame in a stack trace has no line, its
        // functions print like native ones, and building plus freeing a VM takes 6.5% fewer
        // instructions (callgrind).
        if debug {
          (qjs::JS_WRITE_OBJ_BYTECODE | qjs::JS_WRITE_OBJ_STRIP_SOURCE) as i32
        } else {
          (qjs::JS_WRITE_OBJ_BYTECODE
            | qjs::JS_WRITE_OBJ_STRIP_DEBUG
            | qjs::JS_WRITE_OBJ_STRIP_SOURCE) as i32
        },
      )
    };
    if buffer.is_null() {
      return Err("out of memory writing bytecode".to_string());
    }
    // SAFETY: QuickJS wrote `size` bytes at `buffer`, which stays valid until freed here.
    let bytes = unsafe { std::slice::from_raw_parts(buffer, size as usize) }.to_vec();
    // SAFETY: `buffer` came from this context's allocator and is not used again.
    unsafe { qjs::js_free(raw, buffer.cast()) };
    Ok(bytes)
  })
}

/// Evaluates bytecode made by [`compile_script`] in `ctx` and returns the script's value.
pub fn run<'js>(ctx: &Ctx<'js>, bytes: &[u8]) -> Result<Value<'js>> {
  let raw = ctx.as_raw().as_ptr();
  // SAFETY: `bytes` is bytecode this same QuickJS build wrote (see `compile`); reading it
  // creates an owned function object in this context.
  let function = unsafe {
    qjs::JS_ReadObject(
      raw,
      bytes.as_ptr(),
      bytes.len() as _,
      qjs::JS_READ_OBJ_BYTECODE as i32,
    )
  };
  // SAFETY: an exception value is a plain tag, never freed; anything else is owned by us.
  if unsafe { qjs::JS_IsException(function) } {
    return Err(Error::Exception);
  }
  // SAFETY: JS_EvalFunction takes ownership of `function` and returns an owned value, which
  // `Value` frees on drop.
  let value = unsafe { Value::from_raw(ctx.clone(), qjs::JS_EvalFunction(raw, function)) };
  if value.is_exception() {
    return Err(Error::Exception);
  }
  Ok(value)
}

/// Evaluates `source` as a global script named `filename`, as `Ctx::eval_with_options` does
/// with `flags` (`JS_EVAL_*`), except that `source` may contain NUL characters: rquickjs makes a
/// C string of it, which refuses them, while QuickJS itself reads `len` bytes (a NUL inside a
/// literal or a comment is source text, as in upstream's QuickJS-WASI `evalCode`). A throw is
/// `Err(Error::Exception)`, for `catch`.
pub fn eval_script<'js>(
  ctx: &Ctx<'js>,
  source: &str,
  filename: &str,
  flags: i32,
) -> Result<Value<'js>> {
  let name = CString::new(filename)?;
  // QuickJS reads up to `len` and wants a NUL just past it.
  let mut code = Vec::with_capacity(source.len() + 1);
  code.extend_from_slice(source.as_bytes());
  code.push(0);
  let raw = ctx.as_raw().as_ptr();
  // SAFETY: `raw` is this context's live JSContext, on this thread (its stack top is reset, as
  // rquickjs's own eval does under `parallel`); `code` holds `source.len()` bytes and a NUL,
  // and both buffers outlive the call. The returned value is owned and handed to `Value`.
  let value = unsafe {
    qjs::JS_UpdateStackTop(qjs::JS_GetRuntime(raw));
    Value::from_raw(
      ctx.clone(),
      qjs::JS_Eval(
        raw,
        code.as_ptr().cast(),
        source.len() as _,
        name.as_ptr(),
        flags,
      ),
    )
  };
  if value.is_exception() {
    return Err(Error::Exception);
  }
  Ok(value)
}

/// The value of a prelude script in `ctx`, from bytecode compiled on first use into `cache`
/// (one per [`super::Guest`]).
pub fn load<'js>(
  ctx: &Ctx<'js>,
  cache: &OnceLock<Option<Vec<u8>>>,
  source: impl FnOnce() -> String,
) -> Result<Value<'js>> {
  match cache.get_or_init(|| compile(&source(), "prelude.js").ok()) {
    Some(bytes) => run(ctx, bytes),
    None => Err(Error::Unknown),
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn bytecode_round_trips() {
    let bytes = compile("(function (x) { 'use strict'; return x * 2 })", "t.js").unwrap();
    let rt = Runtime::new().unwrap();
    let ctx = Context::full(&rt).unwrap();
    ctx.with(|ctx| {
      let f: rquickjs::Function = run(&ctx, &bytes).unwrap().get().unwrap();
      assert_eq!(f.call::<_, i32>((21,)).unwrap(), 42);
    });
    assert!(compile("(function (", "bad.js").is_err());
    assert_eq!(
      compile_script("'\0'", "nul.js", true, false),
      Err("the source contains a NUL character".to_string())
    );
    assert_eq!(
      compile_script("1", "nul\0.js", true, false),
      Err("the file name contains a NUL character".to_string())
    );
    assert!(
      compile_script("(", "bad.js", true, false).is_err_and(|e| e.starts_with("SyntaxError: "))
    );
  }

  #[test]
  fn a_script_may_hold_nul_characters() {
    let rt = Runtime::new().unwrap();
    let ctx = Context::full(&rt).unwrap();
    ctx.with(|ctx| {
      let flags = qjs::JS_EVAL_TYPE_GLOBAL as i32;
      let value = eval_script(&ctx, "'a\0b' // \0", "t.js", flags).unwrap();
      assert_eq!(value.get::<String>().unwrap(), "a\0b");
      assert!(matches!(
        eval_script(&ctx, "throw 1", "t.js", flags),
        Err(Error::Exception)
      ));
    });
  }
}
