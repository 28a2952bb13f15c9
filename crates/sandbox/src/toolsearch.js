// Tool Search's half of the guest prelude (`Guest::prelude`, see crates/engine/src/lib.rs): the one
// global `openclaw.tools` with `search`, `describe` and `call`, built from `host` (the functions
// of crates/sandbox/src/toolsearch.rs) and the engine prelude's helpers in `core`. The engine adds only
// `console.log/warn/error` (`EngineGlobals` of this guest).
(function (host, core) {
  'use strict';
  const { apply, constant, defineProperty, freeze, isArray, JSONparse, JSONstringify, reject, resolve, str, TypeErrorCtor, wellFormed } = core;
  // Taken before any guest code runs (a cell may replace `Promise.prototype.then`).
  const promiseThen = Promise.prototype.then;

  // What a JSON text is, by its first character (an object's is `{`; what is left is a number).
  const JSON_KINDS = freeze({ __proto__: null, '"': 'a string', '[': 'an array', n: 'null', t: 'a boolean', f: 'a boolean' });

  function parsed(fn) {
    try {
      return resolve(JSONparse(fn()));
    } catch (error) {
      return reject(error);
    }
  }

  // A search's hits: the array, with a non-enumerable `queryTruncated` ({ searched, reason,
  // message }) when the query was over the caps and only its first part was searched; the cell's
  // output says so too, for a cell that returns the hits without looking.
  function hitsOf(text) {
    const value = JSONparse(text);
    if (isArray(value)) return value;
    defineProperty(value.hits, 'queryTruncated', { value: value.queryTruncated, enumerable: false });
    host.out(0, 'openclaw.tools.search: ' + value.queryTruncated.message);
    return value.hits;
  }

  const tools = freeze({
    search(query, options) {
      try {
        if (query === undefined || query === null) query = '';
        if (typeof query !== 'string') throw new TypeErrorCtor('query must be a string.');
        if (options !== undefined && options !== null && typeof options !== 'object') {
          throw new TypeErrorCtor('options must be an object like { limit: number }.');
        }
        return resolve(hitsOf(host.toolSearch(wellFormed(query), options == null ? undefined : options.limit)));
      } catch (error) {
        return reject(error);
      }
    },
    describe(id) {
      return parsed(() => host.toolDescribe(str(id)));
    },
    call(id, args) {
      try {
        let input = '{}';
        if (args !== undefined) {
          input = JSONstringify(args);
          if (input === undefined) throw new TypeErrorCtor('tool args must be JSON-serialisable.');
          // What the tool receives is this text, as the structured `tool_call`'s (lib/tool-search.js):
          // an object, whatever a `toJSON` makes of it. Its first character names what it is
          // (lib/tool-search.js's jsonTypeName), without parsing it again.
          if (input[0] !== '{') throw new TypeErrorCtor(`tool args must serialise to a JSON object, not ${JSON_KINDS[input[0]] ?? 'a number'}.`);
        }
        // Resolves to OpenClaw's envelope: the tool's hit (as a search shows it) and the result.
        const target = str(id);
        const tool = JSONparse(host.toolHit(target));
        return apply(promiseThen, host.toolCall(target, input), [(result) => ({ tool, result })]);
      } catch (error) {
        return reject(error);
      }
    },
  });

  constant('openclaw', freeze({ tools }));

  return {
    bind() {
      // A structured `tool_call` cell: its call was given as data (never spliced into source).
      if (host.hasPreparedCall()) constant('__openclawToolCall', () => host.preparedCall());
    },
  };
})
