// Prints OpenClaw's own Tool Search hints of the schema corpus (schema-corpus.mjs) as one JSON
// array of [input, output] pairs: compactToolInputHint and compactToolOutputHint of the installed
// gateway's dist. Needs Node >= 24.16 (openclaw's engines): tool-search-hints.spec.ts runs it
// with the Node 24 of tools/node24.
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { schemaCorpus } from './schema-corpus.mjs'

const require = createRequire(import.meta.url)
const harness = require('../../lib/openclaw-gateway.js')
const found = harness.requireOpenClaw({ who: 'the schema hint differential' })
const dist = join(found.dir, 'dist')
const entry = readdirSync(dist).find((f) => f.startsWith('tool-contract-error-') && f.endsWith('.mjs'))
if (!entry) throw new Error(`no dist/tool-contract-error-*.mjs in ${found.dir}`)
const mod = await import(pathToFileURL(join(dist, entry)).href)
const named = (name) => {
  const fn = Object.values(mod).find((f) => typeof f === 'function' && f.name === name)
  if (!fn) throw new Error(`${name} is not exported by dist/${entry}`)
  return fn
}
const input = named('compactToolInputHint')
const output = named('compactToolOutputHint')
const [count, seed] = process.argv.slice(2).map(Number)
const schemas = schemaCorpus(count || undefined, seed || undefined)
process.stdout.write(JSON.stringify(schemas.map((s) => [input(s), output(s) ?? null])))
