#!/usr/bin/env node
// Derives the test262 subset in test262/ from a tc39/test262 checkout (or bare git directory)
// at the pinned commit, so that the subset can be re-made and checked at any time:
//
//   node tools/test262/subset.mjs <test262 checkout or git dir>          write test262/
//   node tools/test262/subset.mjs <test262 checkout or git dir> --dry    print the counts only
//
// What is chosen (RULES), and why:
// - Every test, or a dense sample, of the builtins and syntax that this package changes: the
//   vendored QuickJS patches (vendor/patches/rquickjs-sys/: the array-like loops of 0009 and
//   0010, the JSON.stringify fast path of 0007, the lazily built intrinsics of 0004, accessor
//   names of 0005, the regexp classes and `new Function` declarations of 0009) and the front end
//   (explicit resource management, HTML-like comments before the completion value, ASI).
// - One test in 20 of the rest of built-ins/, one in 25 of language/: a broad look at the language.
// - Left out: what a cell cannot run (flags `module`, `raw`, `noStrict`; `CanBlockIs*`, which
//   depend on the agent; `import()` and `import.meta`, which cells refuse by design), what needs a `$262` a cell cannot give (createRealm, evalScript, gc,
//   agent, IsHTMLDDA: only `$262.global` and `$262.detachArrayBuffer` are offered), ECMA-402
//   (intl402/) and staging/, and directories that only cost time (Temporal, which QuickJS does not
//   implement; RegExp property escapes, megabytes of generated tables).
//
// The harness files the chosen tests include, test262's LICENSE and subset.json (the commit,
// these rules and the counts) are written next to the tests.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { ROOT, listTests } from './cells.mjs'

export const COMMIT = 'be13516fb6441b950ba8a3df97eb34062c186972'

// [path prefix, every]: the first prefix a test's path starts with decides; `every` 1 takes every
// test, n one test in n (by a hash of its path, so the choice stays put when tests are added
// elsewhere), 0 none.
const RULES = [
  // Only cost time: Temporal, which QuickJS does not implement, and megabytes of generated
  // RegExp property-escape tables; ShadowRealm needs a realm a cell cannot make.
  ['built-ins/Temporal/', 0],
  ['built-ins/RegExp/property-escapes/', 0],
  ['built-ins/ShadowRealm/', 0],
  // 0009 and 0010: native loops over an array-like's length that poll the deadline.
  ...['concat', 'copyWithin', 'fill', 'flat', 'flatMap', 'join', 'reverse', 'shift', 'slice', 'sort', 'splice', 'toLocaleString', 'unshift'].map(
    (name) => [`built-ins/Array/prototype/${name}/`, 1],
  ),
  ['built-ins/Array/from/', 1],
  ['built-ins/Object/fromEntries/', 1],
  ['built-ins/String/raw/', 1],
  ...['endsWith', 'includes', 'indexOf', 'lastIndexOf', 'localeCompare', 'normalize', 'replace', 'replaceAll', 'split', 'startsWith'].map(
    (name) => [`built-ins/String/prototype/${name}/`, 1],
  ),
  ['built-ins/RegExp/CharacterClassEscapes/', 1],
  ['built-ins/RegExp/unicodeSets/', 1],
  ['built-ins/Function/', 2],
  // 0007 and 0010: JSON.stringify's fast path and replacer list.
  ['built-ins/JSON/', 1],
  // 0004: intrinsics built on first use (typed arrays below).
  ['built-ins/Map/', 1],
  ['built-ins/Set/', 1],
  ['built-ins/WeakMap/', 1],
  ['built-ins/WeakSet/', 1],
  ['built-ins/MapIteratorPrototype/', 1],
  ['built-ins/SetIteratorPrototype/', 1],
  ['built-ins/Date/', 4],
  ['built-ins/TypedArray/', 12],
  ['built-ins/TypedArrayConstructors/', 12],
  ['built-ins/ArrayBuffer/', 12],
  ['built-ins/DataView/', 12],
  // Iterator helpers, BigInt and for-of (hot paths of the engine); for-of's generated
  // destructuring variants sampled.
  ['built-ins/Iterator/', 1],
  ['built-ins/BigInt/', 1],
  ['language/statements/for-of/dstr/', 4],
  ['language/statements/for-of/', 1],
  // The front end: explicit resource management, comments before the completion value, ASI.
  ['language/statements/using/', 1],
  ['language/statements/await-using/', 1],
  ['built-ins/DisposableStack/', 1],
  ['built-ins/AsyncDisposableStack/', 1],
  ['built-ins/SuppressedError/', 1],
  ['annexB/language/comments/', 1],
  ['language/comments/', 1],
  ['language/asi/', 1],
  // A broad sample of the rest of the language and its builtins.
  ['built-ins/', 20],
  ['language/', 25],
]
// 0005: the names of accessors (`get x`, `set x`), wherever they are in language/.
const NAMES = /^language\/.*(accessor-name|fn-name-(accessor|getter|setter))/
const SKIPPED_FLAGS = ['module', 'raw', 'noStrict', 'CanBlockIsFalse', 'CanBlockIsTrue']
const MODULE_FEATURES = ['dynamic-import', 'import-attributes', 'import-defer', 'source-phase-imports', 'import.meta']
const OFFERED_262 = new Set(['global', 'detachArrayBuffer'])

function hashed(id, every) {
  return createHash('sha1').update(id).digest().readUInt32BE(0) % every === 0
}

/** Whether a test is chosen: by the first rule its path matches, or as an accessor name. */
function rule(id) {
  const found = RULES.find(([prefix]) => id.startsWith(prefix))
  if (!found || found[1] === 0) return null
  if (found[1] === 1) return 'whole'
  if (NAMES.test(id)) return 'names'
  return hashed(id, found[1]) ? `1 in ${found[1]}` : null
}

/** Why a chosen test cannot run as a cell, or null. */
function excluded(test, source262) {
  const flag = test.meta.flags.find((f) => SKIPPED_FLAGS.includes(f))
  if (flag) return `flag ${flag}`
  if (test.meta.negative?.phase === 'resolution') return 'module resolution'
  // Cells refuse module access by design (crates/frontend/src/checks.rs), before they run.
  const module = test.meta.features.find((f) => MODULE_FEATURES.includes(f))
  if (module) return `module access (${module})`
  const uses = new Set()
  for (const text of [test.source, ...test.meta.includes.map(source262)]) {
    for (const match of text.matchAll(/\$262\.(\w+)/g)) uses.add(match[1])
  }
  const needs = [...uses].filter((name) => !OFFERED_262.has(name))
  return needs.length > 0 ? `$262.${needs[0]}` : null
}

function fromSource(from) {
  if (existsSync(join(from, 'test')) && existsSync(join(from, 'harness'))) {
    let head = null
    try {
      head = execFileSync('git', ['-C', from, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {}
    if (head !== null && head !== COMMIT) throw new Error(`${from} is at ${head}, not the pinned ${COMMIT}`)
    return { dir: from, cleanup() {} }
  }
  // A git directory (bare, or a checkout at another commit): the pinned commit's files.
  const dir = mkdtempSync(join(tmpdir(), 'test262-'))
  const tar = execFileSync('git', ['--git-dir', from, 'archive', COMMIT, 'test', 'harness', 'LICENSE'], { maxBuffer: 1 << 30 })
  execFileSync('tar', ['-x', '-C', dir], { input: tar })
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

function main() {
  const [from, ...rest] = process.argv.slice(2)
  if (!from) {
    console.error('usage: node tools/test262/subset.mjs <test262 checkout or git dir> [--dry]')
    process.exit(2)
  }
  const dry = rest.includes('--dry')
  const source = fromSource(from)
  try {
    const harnessText = (name) => readFileSync(join(source.dir, 'harness', name), 'utf8')
    const counts = {}
    const reasons = {}
    const chosen = []
    for (const test of listTests(source.dir)) {
      const why = rule(test.id)
      if (!why) continue
      const out = excluded(test, harnessText)
      if (out) {
        reasons[out] = (reasons[out] ?? 0) + 1
        continue
      }
      counts[why] = (counts[why] ?? 0) + 1
      chosen.push(test)
    }
    const includes = new Set(['assert.js', 'sta.js', 'doneprintHandle.js'])
    for (const test of chosen) for (const name of test.meta.includes) includes.add(name)
    const summary = {
      commit: COMMIT,
      command: 'node tools/test262/subset.mjs <test262 checkout or git dir>',
      rules: { byPrefix: RULES, names: String(NAMES), skippedFlags: SKIPPED_FLAGS, moduleFeatures: MODULE_FEATURES, offered262: [...OFFERED_262] },
      tests: chosen.length,
      byRule: counts,
      left: reasons,
      harness: [...includes].sort(),
    }
    console.log(JSON.stringify({ tests: chosen.length, byRule: counts, left: reasons, harness: includes.size }, null, 2))
    if (dry) return
    rmSync(join(ROOT, 'test'), { recursive: true, force: true })
    rmSync(join(ROOT, 'harness'), { recursive: true, force: true })
    for (const test of chosen) {
      const to = join(ROOT, 'test', test.id)
      mkdirSync(dirname(to), { recursive: true })
      cpSync(join(source.dir, 'test', test.id), to)
    }
    mkdirSync(join(ROOT, 'harness'), { recursive: true })
    for (const name of includes) cpSync(join(source.dir, 'harness', name), join(ROOT, 'harness', name))
    cpSync(join(source.dir, 'LICENSE'), join(ROOT, 'LICENSE'))
    writeFileSync(join(ROOT, 'subset.json'), JSON.stringify(summary, null, 2) + '\n')
    let bytes = 0
    for (const test of chosen) bytes += statSync(join(ROOT, 'test', test.id)).size
    console.log(`wrote ${chosen.length} tests (${(bytes / 1048576).toFixed(1)} MiB) and ${includes.size} harness files to test262/`)
  } finally {
    source.cleanup()
  }
}

main()
