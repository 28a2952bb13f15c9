//! Promises that a sandbox's answer settles, from whichever thread reads it. napi's deferred
//! settles through a threadsafe function; the callbacks here cannot fail, so nothing reaches
//! `napi_fatal_exception`.

use napi::bindgen_prelude::{Env, Object, Result, ToNapiValue};

type Deferred<T> = napi::JsDeferred<T, Box<dyn FnOnce(Env) -> Result<T> + Send>>;

/// The settling half of a promise made by [`create`]. Dropping it unsettled rejects nothing:
/// every owner settles it on every path (a process that ends answers its requests with an
/// error).
pub struct Settle<T: ToNapiValue + 'static> {
  deferred: Deferred<T>,
}

impl<T: ToNapiValue + Send + 'static> Settle<T> {
  pub fn resolve(self, value: T) {
    self.deferred.resolve(Box::new(move |_| Ok(value)));
  }

  pub fn reject(self, message: impl Into<String>) {
    self
      .deferred
      .reject(napi::Error::from_reason(message.into()));
  }
}

/// A promise for JavaScript and its settling half.
pub fn create<'env, T: ToNapiValue + Send + 'static>(
  env: &'env Env,
) -> Result<(Settle<T>, Object<'env>)> {
  let (deferred, promise) = env.create_deferred::<T, Box<dyn FnOnce(Env) -> Result<T> + Send>>()?;
  Ok((Settle { deferred }, promise))
}
