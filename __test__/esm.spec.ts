// ES module imports: every export of each entry point is importable by name through the package's
// `exports` map, and the ES module entry (index.mjs) cannot drift from index.js.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'))

/** Runs an ES module in a fresh Node process from the package root (so `@openclaw/code-mode` resolves to this package). */
function esm(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: root, encoding: 'utf8' })
}

describe('ES module entry', () => {
  it('index.mjs names exactly the exports of index.js', () => {
    const cjs = Object.keys(require('../index.js')).sort()
    const named = JSON.parse(esm(`import * as m from '${pkg.name}'; console.log(JSON.stringify(Object.keys(m)))`))
    expect(named.filter((k: string) => k !== 'default').sort()).toEqual(cjs)
    expect(cjs.length).toBeGreaterThanOrEqual(10)
  })

  it('named imports are the CommonJS values (one instance of the package)', () => {
    const out = esm(`
      import { createRequire } from 'node:module'
      import codeMode, { CodeModeRun, assertCodeModePayload, configureCodeModeRuntime, resolveCodeModeConfig } from '${pkg.name}'
      const cjs = createRequire(import.meta.url)('${pkg.name}')
      assertCodeModePayload(['exec', 'wait'])
      console.log(JSON.stringify([codeMode === cjs, CodeModeRun === cjs.CodeModeRun, configureCodeModeRuntime === cjs.configureCodeModeRuntime, resolveCodeModeConfig(true).enabled]))
    `)
    expect(JSON.parse(out)).toEqual([true, true, true, true])
  })

  it('the ./mcp and ./testing entries have every export named under ESM too', () => {
    for (const entry of ['mcp', 'testing']) {
      const cjs = Object.keys(require(`../lib/${entry}.js`)).sort()
      const named = JSON.parse(esm(`import * as m from '${pkg.name}/${entry}'; console.log(JSON.stringify(Object.keys(m)))`))
      // Node 23+ also names the whole CommonJS value `module.exports`.
      expect(named.filter((k: string) => k !== 'default' && k !== 'module.exports').sort(), entry).toEqual(cjs)
    }
  })

  it('package.json routes import to index.mjs with its own types, and ships both files', () => {
    expect(pkg.exports['.'].import).toEqual({ types: './index.d.mts', default: './index.mjs' })
    expect(pkg.files).toEqual(expect.arrayContaining(['index.mjs', 'index.d.mts']))
  })
})
