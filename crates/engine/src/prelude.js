// The engine's half of every guest prelude, evaluated in every VM before the cell. It receives
// `host` (native functions closed over this VM's state: the engine's `out`, `timer`,
// `clearTimer`, `yield`, `done`, and the host's own) and `guest`, the host's half
// (`Guest::prelude` in crates/engine/src/lib.rs), which it calls with the helpers below to install the
// host's globals. It installs the engine's globals (output, timers, yield_control, console) and
// returns the hooks the engine drives. `only` (`EngineGlobals` in crates/engine/src/lib.rs) is null
// for all of the engine's globals, or an object naming the ones this guest gets. It captures every builtin it relies on first, so a cell
// that rewrites JSON, Promise or Map only breaks itself.
(function (host, guest, only) {
  'use strict';
  const g = globalThis;
  const { defineProperty, freeze, isFrozen, getOwnPropertyNames, getOwnPropertyDescriptor } = Object;
  const apply = Reflect.apply;
  const JSONparse = JSON.parse;
  const JSONstringify = JSON.stringify;
  const P = Promise;
  const then = P.prototype.then;
  const resolve = (v) => P.resolve(v);
  const reject = (e) => P.reject(e);
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const toWellFormed = String.prototype.toWellFormed;
  const isArray = Array.isArray;

  // Building any error's stack must not run guest code: QuickJS calls Error.prepareStackTrace
  // and coerces Error.stackTraceLimit there, also for errors thrown from inside bridge
  // functions (and prepareStackTrace's call sites hand out the prelude's own functions).
  // Drop the hook; keep the limit settable, as a number fixed when it is set.
  {
    const limit = getOwnPropertyDescriptor(ErrorCtor, 'stackTraceLimit');
    delete ErrorCtor.prepareStackTrace;
    defineProperty(ErrorCtor, 'stackTraceLimit', {
      get: limit.get,
      set(value) {
        apply(limit.set, this, [+value]);
      },
      enumerable: false,
      configurable: false,
    });
  }

  // Builtins that loop natively over a huge `length` (Array.prototype.join, sort, flat…) poll
  // the deadline inside QuickJS itself: vendor/patches/rquickjs-sys/0010-*.patch.

  // Timer id (a number the host hands out) -> [callback, args]. A prototype-less object, not a
  // Map: no builtin method to call or for a cell to replace, and no Map built in every VM (QuickJS
  // builds Map, Date and typed arrays on first use; see vendor/rquickjs-sys/VENDORED.md).
  const timers = { __proto__: null };

  function deepFreeze(value) {
    if (value !== null && typeof value === 'object' && !isFrozen(value)) {
      freeze(value);
      const keys = getOwnPropertyNames(value);
      for (let i = 0; i < keys.length; i++) deepFreeze(value[keys[i]]);
    }
    return value;
  }

  // JSON text of a value, as JSON.stringify gives it, with cycles and BigInt replaced instead
  // of throwing. `undefined` and functions become null.
  function toJson(value) {
    let text;
    try {
      text = JSONstringify(value);
    } catch (error) {
      if (!(error instanceof TypeErrorCtor)) throw error;
      const ancestors = [];
      text = JSONstringify(value, function (key, item) {
        if (typeof item === 'bigint') return StringCtor(item);
        if (item === null || typeof item !== 'object') return item;
        while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
        for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === item) return '[Circular]';
        ancestors.push(item);
        return item;
      });
    }
    return text === undefined ? 'null' : text;
  }

  // Strings cross to the host as UTF-8: a lone surrogate becomes U+FFFD on the way instead of
  // failing the conversion (or emptying an error message).
  function wellFormed(text) {
    return apply(toWellFormed, text, []);
  }

  function str(value) {
    return wellFormed(StringCtor(value));
  }

  function show(value) {
    return wellFormed(describeValue(value));
  }

  function describeValue(value) {
    try {
      if (typeof value === 'string') return value;
      if (value === undefined) return 'undefined';
      if (typeof value === 'function') return '[Function]';
      if (typeof value === 'symbol' || typeof value === 'bigint') return StringCtor(value);
      if (value instanceof ErrorCtor) return StringCtor(value.name) + ': ' + StringCtor(value.message);
      return toJson(value);
    } catch (error) {
      try {
        return StringCtor(value);
      } catch (again) {
        return '[unprintable value]';
      }
    }
  }

  function errorInfo(error, prefix) {
    try {
      const isError = error instanceof ErrorCtor;
      const name = isError ? str(error.name) : '';
      const message = isError ? str(error.message) : 'Uncaught ' + show(error);
      const stack = isError && typeof error.stack === 'string' ? wellFormed(error.stack) : '';
      return JSONstringify({ name, message: (prefix || '') + message, stack });
    } catch (again) {
      return '{"name":"Error","message":"unprintable exception","stack":""}';
    }
  }

  function output(kind) {
    return kind === 0 ? (value) => host.out(0, show(value)) : (value) => host.out(1, toJson(value));
  }

  function log(...args) {
    let line = '';
    for (let i = 0; i < args.length; i++) line += (i > 0 ? ' ' : '') + show(args[i]);
    host.out(0, line);
  }

  function setTimeout(callback, delay, ...args) {
    if (typeof callback !== 'function') throw new TypeErrorCtor('setTimeout callback must be a function.');
    const ms = +delay;
    const id = host.timer(ms > 0 ? ms : 0);
    timers[id] = [callback, args];
    return id;
  }

  function clearTimeout(id) {
    if (typeof id === 'number' && timers[id] !== undefined) {
      delete timers[id];
      host.clearTimer(id);
    }
  }

  // The host hands every yield of a leg the same id; each caller still gets its own promise.
  // yield id -> [the shared promise, its resolve]. A prototype-less object: no builtin method to
  // call, or for a cell to replace. (Nested calls' promises are settled by the host.)
  const yields = { __proto__: null };
  function yield_control(reason) {
    const id = host.yield(reason === undefined ? '' : show(reason));
    let entry = yields[id];
    if (entry === undefined) {
      let resume;
      const shared = new P((ok) => {
        resume = ok;
      });
      entry = yields[id] = [shared, resume];
    }
    return apply(then, entry[0], []);
  }

  function lazy(name, build) {
    let value;
    let built = false;
    defineProperty(g, name, {
      get() {
        if (!built) {
          value = build();
          built = true;
        }
        return value;
      },
      enumerable: false,
      configurable: false,
    });
  }

  function constant(name, value) {
    defineProperty(g, name, { value, writable: false, enumerable: false, configurable: false });
  }

  // What the host's half builds its globals with.
  const core = freeze({
    apply,
    defineProperty,
    deepFreeze,
    freeze,
    isArray,
    JSONparse,
    JSONstringify,
    reject,
    resolve,
    show,
    str,
    toJson,
    TypeErrorCtor,
    wellFormed,
    lazy,
    constant,
  });
  // The host's globals come first, as they always have (the global object's key order).
  const own = guest(host, core);

  // A guest that names its engine globals gets those and no others (Tool Search: console's
  // log, warn and error only).
  function engineGlobal(name, value) {
    if (only === null || only === undefined) {
      constant(name, value);
      return;
    }
    const wanted = only[name];
    if (wanted === true) constant(name, value);
    else if (isArray(wanted)) {
      const part = {};
      for (let i = 0; i < wanted.length; i++) part[wanted[i]] = value[wanted[i]];
      constant(name, freeze(part));
    }
  }
  engineGlobal('text', output(0));
  engineGlobal('json', output(1));
  engineGlobal('yield_control', yield_control);
  engineGlobal('setTimeout', setTimeout);
  engineGlobal('clearTimeout', clearTimeout);
  engineGlobal('console', freeze({ log, info: log, warn: log, error: log, debug: log }));

  return freeze({
    bind: own.bind,
    start(main) {
      const done = (value) => {
        let text;
        try {
          text = toJson(value);
        } catch (error) {
          host.done(false, errorInfo(error, 'result is not JSON-serialisable: '));
          return;
        }
        host.done(true, text);
      };
      // The host's half may make an uncaught error clearer (`explain`, optional).
      const failed = (error) =>
        host.done(false, errorInfo(own.explain === undefined ? error : own.explain(error)));
      apply(then, main(), [done, failed]);
    },
    // A failed nested call: its promise rejects with an Error built here, like any guest error.
    fail(rejectCall, text) {
      rejectCall(new ErrorCtor(text));
    },
    // A `yield_control()` entry resumed (on `wait`).
    resume(id) {
      const entry = yields[id];
      if (entry === undefined) return;
      delete yields[id];
      entry[1](undefined);
    },
    fire(id) {
      const timer = timers[id];
      if (timer === undefined) return;
      delete timers[id];
      try {
        apply(timer[0], undefined, timer[1]);
      } catch (error) {
        host.out(0, 'Uncaught error in setTimeout callback: ' + show(error));
      }
    },
    describeRejection(reason) {
      return show(reason);
    },
  });
})
