// Every path a comment or document cites is in the repository (tools/check-citations.mjs), and
// the check names a citation that is not: a moved file, a path in a patch header, a document
// kept outside the repository.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findBadCitations, trackedFiles } from '../tools/check-citations.mjs'

const root = resolve(__dirname, '..')
const files = trackedFiles(root)
const texts = new Map<string, string>()
const text = (f: string) => texts.get(f) ?? texts.set(f, readFileSync(join(root, f), 'utf8')).get(f)!

/** The check over the repository with `edits` (file → its text) in place of those files. */
function check(edits: Record<string, string>) {
  const all = [...new Set([...files, ...Object.keys(edits)])]
  return findBadCitations({ root, files: all, read: (f) => edits[f] ?? text(f) })
}

/** `file` as it is, plus `line` at its end. */
const withLine = (file: string, line: string) => ({ [file]: `${text(file)}\n${line}\n` })

describe('citations', () => {
  it('every cited path is in the repository', () => {
    expect(check({})).toEqual([])
  })

  it('names a moved file cited in a Rust comment, with its line', () => {
    const edits = withLine('crates/frontend/src/lib.rs', '// The guard lives in src/frontend/guard.rs.')
    const line = edits['crates/frontend/src/lib.rs'].split('\n').length - 1
    expect(check(edits)).toEqual([
      { file: 'crates/frontend/src/lib.rs', line, cited: 'src/frontend/guard.rs', why: expect.stringContaining('no such file') },
    ])
  })

  it('resolves a path against the citing crate, so a crate-relative path is fine and a wrong one is not', () => {
    expect(check(withLine('crates/engine/src/store.rs', '// See src/watchdog.rs.'))).toEqual([])
    expect(check(withLine('crates/engine/src/store.rs', '// See src/watchdog.rs and src/warden.rs.'))).toMatchObject([{ cited: 'src/warden.rs' }])
  })

  it('checks globs, JSDoc and Markdown, and patch headers but not their diffs', () => {
    expect(check(withLine('lib/bounded.js', '/** Checked by tools/check-*.mjs */'))).toEqual([])
    expect(check(withLine('lib/bounded.js', '/** Built by tools/vendor-quickjs.sh */'))).toMatchObject([{ cited: 'tools/vendor-quickjs.sh' }])
    expect(check(withLine('docs/hardening.md', 'See `vendor/patches/rquickjs-sys/0002-*.patch`.'))).toMatchObject([
      { cited: 'vendor/patches/rquickjs-sys/0002-*.patch' },
    ])
    const patch = 'vendor/patches/swc_ecma_parser/0001-export-token-flags.patch'
    expect(check({ [patch]: `See src/nowhere.rs.\n${text(patch)}` })).toMatchObject([{ file: patch, line: 1, cited: 'src/nowhere.rs' }])
    expect(check({ [patch]: `${text(patch)}+// src/nowhere.rs\n` })).toEqual([])
  })

  it('leaves code alone: a path in a string is data, not a citation', () => {
    expect(check(withLine('lib/bounded.js', "const example = 'src/app.js'"))).toEqual([])
  })

  it('refuses any citation of the documents outside the repository', () => {
    const shared = ['/work', 'shared'].join('/')
    for (const line of [
      `// as ${shared}/DESIGN.md says`,
      `// see ${['..', 'shared', 'notes'].join('/')}`,
      `// ${['reference', 'openclaw-2026.9.6', 'executor-contract.md'].join('/')}`,
      `// the ${'reference'}'s configuration table`,
    ]) {
      const edits = withLine('src/config.rs', line)
      const bad = check(edits)
      expect(bad.length, line).toBeGreaterThan(0)
      expect(bad.map((b) => `${b.file}:${b.line}`), line).toEqual(bad.map(() => `src/config.rs:${edits['src/config.rs'].split('\n').length - 1}`))
    }
  })
})
