// Code mode's half of the guest prelude (`Guest::prelude`, see crates/engine/src/lib.rs and
// crates/engine/src/prelude.js, which calls it): `tools`, `ALL_TOOLS`, `MCP`, `API`, `namespaces` and
// the plugin namespaces, built from `host` (the bridge functions of src/bridge.rs) and the
// engine prelude's helpers in `core`. Returns `bind`, run once the VM knows its run.
(function (host, core) {
  'use strict';
  const { defineProperty, deepFreeze, freeze, isArray, JSONparse, JSONstringify } = core;
  const { reject, resolve, str, TypeErrorCtor, wellFormed, lazy } = core;
  const ProxyCtor = Proxy;
  const hasOwn = Object.hasOwn;
  // Reflect's functions as they were before any cell ran (the `tools` proxy forwards to them).
  const reflect = freeze({
    defineProperty: Reflect.defineProperty,
    deleteProperty: Reflect.deleteProperty,
    getOwnPropertyDescriptor: Reflect.getOwnPropertyDescriptor,
    isExtensible: Reflect.isExtensible,
    ownKeys: Reflect.ownKeys,
    preventExtensions: Reflect.preventExtensions,
    set: Reflect.set,
    setPrototypeOf: Reflect.setPrototypeOf,
  });
  // Names a caller probes without meaning a tool (`await tools`, `JSON.stringify(tools)`).
  const NOT_TOOL_NAMES = ['then', 'toJSON'];

  // The last `tools.<name>` read for a name the run does not have (undefined once a real tool
  // is read). `tools.nope()` fails in QuickJS with a bare "not a function"; if the cell ends
  // with that error right after such a read, `explain` says where to look instead.
  // `typeof tools.nope` stays 'undefined', so probing for a tool works as before.
  let missingTool;

  function inputJson(input) {
    if (input === undefined) return '{}';
    const text = JSONstringify(input);
    if (text === undefined) throw new TypeErrorCtor('tool input must be JSON-serialisable');
    return text;
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

  // A search's hits: the array, with a non-enumerable `queryTruncated` ({ searched, reason,
  // message }) when the query was over the caps and only its first part was searched; the cell's
  // output says so too, for a cell that returns the hits without looking.
  function hitsOf(text) {
    const value = JSONparse(text);
    if (isArray(value)) return value;
    defineProperty(value.hits, 'queryTruncated', { value: value.queryTruncated, enumerable: false });
    host.out(0, 'tools.search: ' + value.queryTruncated.message);
    return value.hits;
  }

  function buildTools() {
    const tools = {
      search(query, options) {
        return attempt(() => {
          if (query === undefined || query === null) query = '';
          if (typeof query !== 'string') throw new TypeErrorCtor('query must be a string.');
          if (options !== undefined && options !== null && typeof options !== 'object') {
            throw new TypeErrorCtor('options must be an object.');
          }
          return hitsOf(host.search(wellFormed(query), options == null ? undefined : options.limit));
        });
      },
      describe(id) {
        return parsed(() => host.describe(str(id)));
      },
      call(id, input) {
        return bridge(0, str(id), input);
      },
    };
    // `tools.<name>` for each tool with an unambiguous identifier-safe name, resolved one name
    // at a time (host.safeName), so a cell that only searches builds no function per tool.
    // Whatever looks at the object whole (keys, descriptors, isFrozen, writes) first installs
    // them all, in catalog order, and freezes it: it behaves as the frozen object it always was.
    // name -> its function, or null when the run has no such tool.
    const made = { __proto__: null };
    let complete = false;
    function convenience(name, id) {
      let fn = made[name];
      if (fn === undefined) {
        if (id === undefined) id = host.safeName(name);
        fn = made[name] = id === '' ? null : (input) => bridge(0, id, input);
      }
      return fn === null ? undefined : fn;
    }
    function whole() {
      if (!complete) {
        const names = JSONparse(host.safeNames());
        for (let i = 0; i < names.length; i++) {
          defineProperty(tools, names[i][0], { value: convenience(names[i][0], names[i][1]), enumerable: true });
        }
        freeze(tools);
        complete = true;
      }
      return tools;
    }
    // A tool's own name comes before anything the prototype chain has, as an own property did.
    const named = (target, name) =>
      !complete && typeof name === 'string' && !hasOwn(target, name) ? convenience(name) : undefined;
    return new ProxyCtor(tools, {
      get(target, name) {
        const tool = named(target, name);
        if (typeof name === 'string') {
          missingTool = tool !== undefined || name in target || NOT_TOOL_NAMES.includes(name) ? undefined : name;
        }
        return tool !== undefined ? tool : target[name];
      },
      has: (target, name) => named(target, name) !== undefined || name in target,
      ownKeys: () => reflect.ownKeys(whole()),
      getOwnPropertyDescriptor: (target, name) => reflect.getOwnPropertyDescriptor(whole(), name),
      defineProperty: (target, name, descriptor) => reflect.defineProperty(whole(), name, descriptor),
      deleteProperty: (target, name) => reflect.deleteProperty(whole(), name),
      set: (target, name, value) => reflect.set(whole(), name, value),
      isExtensible: () => reflect.isExtensible(whole()),
      preventExtensions: () => reflect.preventExtensions(whole()),
      setPrototypeOf: (target, proto) => reflect.setPrototypeOf(whole(), proto),
    });
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

  lazy('ALL_TOOLS', () => deepFreeze(JSONparse(host.catalog())));
  lazy('tools', buildTools);
  lazy('MCP', buildMcp);
  lazy('API', buildApi);
  lazy('namespaces', () => {
    const all = {};
    for (let i = 0; i < namespaceList.length; i++) all[namespaceList[i].name] = namespaceAt(i);
    return freeze(all);
  });

  return {
    // The uncaught error a cell ends with, made clearer (see `missingTool`).
    explain(error) {
      if (missingTool !== undefined && error instanceof TypeErrorCtor && error.message === 'not a function') {
        try {
          error.message =
            'tools.' + missingTool + ' is not a function: there is no such tool in this run. Find tools with ' +
            'tools.search(query) (or ALL_TOOLS), then call one by its name or with tools.call(id, input).';
        } catch (ignored) {}
      }
      return error;
    },
    bind() {
      namespaceList = JSONparse(host.namespaces());
      for (let i = 0; i < namespaceList.length; i++) lazy(namespaceList[i].name, () => namespaceAt(i));
    },
  };
})
