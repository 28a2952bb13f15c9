// test262 tests as code-mode cells: one place for how a test is read, turned into a cell and
// judged, shared by the suite (__test__/test262.spec.ts, which runs the cells through
// CodeModeRun) and by the pristine baseline (tools/test262/baseline.mjs, which runs the same
// cell text on unpatched QuickJS). Interpreting a test follows test262's INTERPRETING.md, with
// the differences a cell imposes:
//
// - A cell is the body of an async function, evaluated as a strict script: every test runs
//   once, in strict mode ("use strict" is implied by the wrapper, not inserted). Tests flagged
//   `noStrict` or `raw` cannot run as cells and are not in the subset (tools/test262/subset.mjs).
// - The harness (assert.js, sta.js, doneprintHandle.js for `async`, then `includes`) is part of
//   the cell, before the test: its declarations are the function's locals, not globals.
// - `print` is defined by the cell; an `async` test ends when it is called (the cell awaits
//   it), and fails unless it is called with 'Test262:AsyncTestComplete'.
// - `$262` offers only what a cell can provide: `global` and `detachArrayBuffer` (through
//   ArrayBuffer.prototype.transfer). Tests that need more are not in the subset.
import { readFileSync, readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse as parseYaml } from 'yaml'

export const ROOT = fileURLToPath(new URL('../../test262/', import.meta.url))
export const BASELINE = join(ROOT, 'baseline.json')

/** The test's frontmatter (`/*--- … ---*\/`), with the fields this runner reads. */
export function readMeta(source) {
  const start = source.indexOf('/*---')
  const end = source.indexOf('---*/', start)
  // Some tests are about line terminators and use CR alone, frontmatter included.
  const meta = start >= 0 && end > start ? parseYaml(source.slice(start + 5, end).replace(/\r\n?/g, '\n')) ?? {} : {}
  return {
    flags: meta.flags ?? [],
    includes: meta.includes ?? [],
    features: meta.features ?? [],
    negative: meta.negative ?? null,
  }
}

/** Every test of the subset in `root`: `{ id, source, meta }`, `id` relative to test/. */
export function listTests(root = ROOT) {
  const base = join(root, 'test')
  const out = []
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.js') && !entry.name.includes('_FIXTURE')) {
        const source = readFileSync(path, 'utf8')
        out.push({ id: relative(base, path).split(sep).join('/'), source, meta: readMeta(source) })
      }
    }
  }
  walk(base)
  return out
}

const harnessCache = new Map()
function harness(name, root) {
  const key = join(root, 'harness', name)
  let text = harnessCache.get(key)
  if (text === undefined) {
    text = readFileSync(key, 'utf8')
    harnessCache.set(key, text)
  }
  return text
}

const PRINT = `let $t262_printed;
const $t262_done = new Promise((resolve) => { $t262_printed = resolve; });
function print(message) { $t262_printed(String(message)); }
`
const SHIM_262 = `const $262 = { global: globalThis, detachArrayBuffer(buffer) { buffer.transfer(); return null; } };
`
const ASYNC_END = `
;const $t262_message = await $t262_done;
if ($t262_message !== 'Test262:AsyncTestComplete') throw new Test262Error('async test: ' + $t262_message);
`

/** The cell's source for a test: the harness it needs, then the test's own text. */
export function cellOf(test, root = ROOT) {
  const async = test.meta.flags.includes('async')
  const parts = [PRINT]
  if (/\$262\b/.test(test.source) || test.meta.includes.some((name) => /\$262\b/.test(harness(name, root)))) parts.push(SHIM_262)
  parts.push(harness('assert.js', root), harness('sta.js', root))
  // asyncHelpers.js looks for $DONE on the global object, where a script's declaration would be.
  if (async) parts.push(harness('doneprintHandle.js', root), 'globalThis.$DONE = $DONE;')
  for (const name of test.meta.includes) parts.push(harness(name, root))
  // A newline first: the harness may end in a line comment.
  parts.push('\n', test.source)
  if (async) parts.push(ASYNC_END)
  return parts.join('\n')
}

/**
 * How a cell ended, in one shape for both engines: `pass` (it completed), `parse` (it did not
 * compile), `runtime` (it threw), or `limit` (time or memory), with the error's name.
 */
export function outcomeOfResult(result) {
  if (result.status === 'completed') return { kind: 'pass' }
  if (result.status !== 'failed') return { kind: 'limit', name: result.status, message: '' }
  const error = String(result.error ?? '')
  const name = /^([A-Za-z_$][\w$]*):/.exec(error)?.[1] ?? ''
  if (result.failurePhase === 'input') return { kind: 'parse', name, message: error }
  if (result.code === 'internal_error' && result.failurePhase === 'guest') return { kind: 'runtime', name, message: error }
  return { kind: 'limit', name: result.code, message: error }
}

/**
 * Tests pristine QuickJS passes and a cell cannot, each with the reason: the suite requires
 * them to keep failing (so this list stays true) and every other test to do as well as pristine.
 */
export const KNOWN_DIFFERENCES = [
  {
    // swc_ecma_ast 30 has no place for a `using` declaration in a `for (…;…;…)` head (its
    // VarDeclOrExpr is a var/let/const declaration or an expression), so swc_ecma_parser 47
    // refuses it, in TypeScript too; `for (using x of …)` and `using` in blocks parse.
    reason: 'the front end (swc) cannot parse `using` / `await using` in a for(;;) head',
    ids: [
      'language/statements/await-using/initializer-Symbol.asyncDispose-called-at-end-of-forstatement.js',
      'language/statements/await-using/initializer-Symbol.asyncDispose-called-if-subsequent-initializer-throws-in-forstatement-head.js',
      'language/statements/await-using/initializer-Symbol.dispose-called-at-end-of-forstatement.js',
      'language/statements/await-using/initializer-Symbol.dispose-called-if-subsequent-initializer-throws-in-forstatement-head.js',
      'language/statements/await-using/syntax/await-using-invalid-assignment-next-expression-for.js',
      'language/statements/await-using/syntax/await-using-outer-inner-using-bindings.js',
      'language/statements/using/initializer-disposed-at-end-of-forstatement.js',
      'language/statements/using/initializer-disposed-if-subsequent-initializer-throws-in-forstatement-head.js',
      'language/statements/using/syntax/using-for-statement.js',
      'language/statements/using/syntax/using-invalid-assignment-next-expression-for.js',
      'language/statements/using/syntax/using-outer-inner-using-bindings.js',
    ],
  },
]

/** Whether a test passed, as INTERPRETING.md defines it (negative tests name phase and type). */
export function passed(test, outcome) {
  const negative = test.meta.negative
  if (!negative) return outcome.kind === 'pass'
  const phase = negative.phase === 'runtime' ? 'runtime' : 'parse'
  return outcome.kind === phase && outcome.name === negative.type
}
