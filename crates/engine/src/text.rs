//! Guest strings read as Rust text, for everything that leaves a VM as text (error messages,
//! names, stacks, thrown values). Two things rquickjs's own conversion does not do:
//! - a lone surrogate (`'\ud800'`, half an emoji) becomes U+FFFD; it never turns the whole
//!   string into a conversion error and the text into nothing;
//! - a string longer than the caller's bound is cut inside the VM first (with the
//!   `String.prototype.slice` the VM was born with), so a huge guest string is never copied,
//!   escaped or sent whole.

use rquickjs::function::This;
use rquickjs::{Ctx, Function, JsLifetime, Value, qjs};

/// `String.prototype.slice` as the VM was born with it (a guest cannot replace the one used
/// here).
struct Intrinsics<'js> {
  slice: Function<'js>,
}

// SAFETY: `Changed` is the same struct with the `'js` lifetime swapped, as the trait requires.
unsafe impl<'js> JsLifetime<'js> for Intrinsics<'js> {
  type Changed<'to> = Intrinsics<'to>;
}

/// Keeps the intrinsics this module needs; call it when a VM is built, before any guest code
/// runs in it.
pub fn install(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
  let prototype: rquickjs::Object = ctx
    .globals()
    .get::<_, rquickjs::Object>("String")?
    .get("prototype")?;
  let slice: Function = prototype.get("slice")?;
  let _ = ctx.store_userdata(Intrinsics { slice });
  Ok(())
}

/// `value` as text (`String(value)`, which may run the guest's `toString`), at most
/// `max_units` UTF-16 code units of it, with lone surrogates as U+FFFD. `None` when it cannot
/// be made a string (the guest's `toString` threw).
pub fn text<'js>(ctx: &Ctx<'js>, value: &Value<'js>, max_units: usize) -> Option<String> {
  let string = if value.is_string() {
    value.clone()
  } else {
    // SAFETY: `JS_ToString` takes a live value of this context and returns a new reference
    // (or an exception), which `Value::from_raw` takes ownership of.
    let raw = unsafe { qjs::JS_ToString(ctx.as_raw().as_ptr(), value.as_raw()) };
    // SAFETY: as above: `raw` is an owned value of `ctx`.
    let string = unsafe { Value::from_raw(ctx.clone(), raw) };
    if !string.is_string() {
      // Clear the pending exception; the caller says what it could not read.
      let _ = ctx.catch();
      return None;
    }
    string
  };
  // SAFETY: reads the intrinsic `length` of a live string value of `ctx` (a string primitive's
  // `length` is not a property a guest can change); the result is an owned number value.
  let length = unsafe {
    let raw = qjs::JS_GetPropertyStr(ctx.as_raw().as_ptr(), string.as_raw(), c"length".as_ptr());
    Value::from_raw(ctx.clone(), raw)
  };
  let length = length.as_number().map_or(0, |n| n as usize);
  let string = if length > max_units {
    let slice = ctx.userdata::<Intrinsics>()?.slice.clone();
    slice
      .call::<_, Value>((This(string), 0, max_units as f64))
      .ok()
      .filter(Value::is_string)?
  } else {
    string
  };
  let mut len: qjs::size_t = 0;
  // SAFETY: `JS_ToCStringLen2` reads a live string value of `ctx` and returns a buffer of
  // `len` bytes that stays valid until `JS_FreeCString`, which is called below after the bytes
  // are copied.
  let bytes = unsafe {
    let ptr = qjs::JS_ToCStringLen2(ctx.as_raw().as_ptr(), &mut len, string.as_raw(), false);
    if ptr.is_null() {
      let _ = ctx.catch();
      return None;
    }
    let copy = std::slice::from_raw_parts(ptr.cast::<u8>(), len as usize).to_vec();
    qjs::JS_FreeCString(ctx.as_raw().as_ptr(), ptr);
    copy
  };
  Some(from_wtf8(bytes))
}

/// UTF-8 from QuickJS's export of a string, which writes a lone surrogate as the three bytes
/// of its code point (WTF-8): each of those becomes U+FFFD.
pub fn from_wtf8(bytes: Vec<u8>) -> String {
  match String::from_utf8(bytes) {
    Ok(text) => text,
    Err(error) => {
      let bytes = error.into_bytes();
      let mut out = Vec::with_capacity(bytes.len());
      let mut at = 0;
      while at < bytes.len() {
        // A surrogate code point: ED A0..BF 80..BF.
        if bytes[at] == 0xed
          && bytes.get(at + 1).is_some_and(|b| (0xa0..=0xbf).contains(b))
          && bytes.get(at + 2).is_some_and(|b| (0x80..=0xbf).contains(b))
        {
          out.extend_from_slice("\u{fffd}".as_bytes());
          at += 3;
        } else {
          out.push(bytes[at]);
          at += 1;
        }
      }
      // Anything else QuickJS wrote is UTF-8 already; a stray byte would still not be.
      String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn lone_surrogates_become_replacement_characters_and_long_strings_are_cut() {
    let rt = rquickjs::Runtime::new().unwrap();
    let ctx = rquickjs::Context::full(&rt).unwrap();
    ctx.with(|ctx| {
      install(&ctx).unwrap();
      let read = |code: &str, max| {
        let value: Value = ctx.eval(code).unwrap();
        text(&ctx, &value, max)
      };
      assert_eq!(
        read("'bad \\ud800 surrogate'", 100).as_deref(),
        Some("bad \u{fffd} surrogate")
      );
      assert_eq!(
        read("'\\udc00\\ud83d\\ude00\\ud800'", 100).as_deref(),
        Some("\u{fffd}😀\u{fffd}")
      );
      assert_eq!(read("'x'.repeat(1e6)", 10).as_deref(), Some("xxxxxxxxxx"));
      assert_eq!(
        read("({ toString() { return 'obj' } })", 10).as_deref(),
        Some("obj")
      );
      assert_eq!(read("({ toString() { throw 1 } })", 10), None);
      // A guest that replaced slice does not change what is read.
      let _: Value = ctx.eval("String.prototype.slice = () => 'forged'").unwrap();
      assert_eq!(read("'abcdef'", 3).as_deref(), Some("abc"));
    });
  }
}
