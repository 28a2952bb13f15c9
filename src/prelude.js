// Guest prelude: evaluated in every VM before the user's cell. It receives the host bridge
// (native functions closed over this cell's state), installs the frozen guest globals, and
// returns the hooks the host drives. It captures every builtin it relies on first, so a cell
// that rewrites JSON, Promise or Map only breaks itself.
(function (host) {
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

  // Builtins that loop natively over a huge `length` (Array.prototype.join, sort, flat…) refuse
  // it with a RangeError inside QuickJS itself: see `cm_check_length` in the vendored quickjs.c.

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

  function inputJson(input) {
    if (input === undefined) return '{}';
    const text = JSONstringify(input);
    if (text === undefined) throw new TypeErrorCtor('tool input must be JSON-serialisable');
    return text;
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

  // One nested call through the host bridge; kind 0 = catalog tool, 1 = MCP, 2 = namespace. The
  // host returns the call's promise and settles it itself.
  function bridge(kind, target, input) {
    try {
      return host.call(kind, target, inputJson(input));
    } catch (error) {
      return reject(error);
    }
  }

  function attempt(fn) {
    try {
      return resolve(fn());
    } catch (error) {
      return reject(error);
    }
  }

  function parsed(fn) {
    return attempt(() => JSONparse(fn()));
  }

  function buildTools() {
    const tools = {
      search(query, options) {
        return parsed(() => {
          if (query === undefined || query === null) query = '';
          if (typeof query !== 'string') throw new TypeErrorCtor('query must be a string.');
          if (options !== undefined && options !== null && typeof options !== 'object') {
            throw new TypeErrorCtor('options must be an object.');
          }
          return host.search(wellFormed(query), options == null ? undefined : options.limit);
        });
      },
      describe(id) {
        return parsed(() => host.describe(str(id)));
      },
      call(id, input) {
        return bridge(0, str(id), input);
      },
    };
    const names = JSONparse(host.safeNames());
    for (let i = 0; i < names.length; i++) {
      const id = names[i][1];
      defineProperty(tools, names[i][0], {
        value: (input) => bridge(0, id, input),
        enumerable: true,
      });
    }
    return freeze(tools);
  }

  // MCP.<server>.<tool>({...}): exactly one object argument (none means {}).
  function mcpTool(id) {
    return (...args) => {
      const input = args[0];
      const objectArg = input !== null && typeof input === 'object' && !isArray(input);
      if (args.length > 1 || (input !== undefined && !objectArg)) {
        return reject(new TypeErrorCtor('MCP namespace tools accept one object argument.'));
      }
      return bridge(1, id, input === undefined ? {} : input);
    };
  }

  function buildMcp() {
    const mcp = { $api: () => parsed(() => host.mcpApi(null, null, false)) };
    const servers = JSONparse(host.mcp());
    for (let i = 0; i < servers.length; i++) {
      const entry = servers[i];
      const server = {
        $api(toolName, options) {
          const tool = toolName === undefined || toolName === null ? null : str(toolName);
          const schema = options !== null && typeof options === 'object' && options.schema === true;
          return parsed(() => host.mcpApi(entry.key, tool, schema));
        },
      };
      for (const [name, id] of entry.tools) server[name] = mcpTool(id);
      for (const group of ['resources', 'prompts']) {
        if (entry[group].length === 0) continue;
        const members = {};
        for (const [name, id] of entry[group]) members[name] = mcpTool(id);
        server[group] = members;
      }
      mcp[entry.key] = server;
    }
    return deepFreeze(mcp);
  }

  function buildApi() {
    return freeze({
      list(prefix) {
        return parsed(() => host.apiList(prefix === undefined || prefix === null ? '' : str(prefix)));
      },
      read(path) {
        return attempt(() => host.apiRead(str(path)));
      },
    });
  }

  // Plugin namespaces: their data, with a bridge function at each callable path. The list is
  // read when the VM is bound to its run (a warm VM has none yet).
  let namespaceList = [];
  const builtNamespaces = [];
  function namespaceAt(index) {
    if (builtNamespaces[index] === undefined) {
      const ns = namespaceList[index];
      let root = ns.data !== null && typeof ns.data === 'object' && !isArray(ns.data) ? ns.data : {};
      for (let c = 0; c < ns.callables.length; c++) {
        const path = ns.callables[c];
        let node = root;
        for (let i = 0; i < path.length - 1; i++) {
          const next = node[path[i]];
          node = node[path[i]] = next !== null && typeof next === 'object' ? next : {};
        }
        const target = index + ':' + c;
        node[path[path.length - 1]] = (...args) => bridge(2, target, args);
      }
      builtNamespaces[index] = deepFreeze(root);
    }
    return builtNamespaces[index];
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

  lazy('ALL_TOOLS', () => deepFreeze(JSONparse(host.catalog())));
  lazy('tools', buildTools);
  lazy('MCP', buildMcp);
  lazy('API', buildApi);
  lazy('namespaces', () => {
    const all = {};
    for (let i = 0; i < namespaceList.length; i++) all[namespaceList[i].name] = namespaceAt(i);
    return freeze(all);
  });
  constant('text', output(0));
  constant('json', output(1));
  constant('yield_control', yield_control);
  constant('setTimeout', setTimeout);
  constant('clearTimeout', clearTimeout);
  constant('console', freeze({ log, info: log, warn: log, error: log, debug: log }));

  return freeze({
    bind() {
      namespaceList = JSONparse(host.namespaces());
      for (let i = 0; i < namespaceList.length; i++) lazy(namespaceList[i].name, () => namespaceAt(i));
    },
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
      apply(then, main(), [done, (error) => host.done(false, errorInfo(error))]);
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
});
