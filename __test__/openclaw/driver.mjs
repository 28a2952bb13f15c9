// Runs the corpus (corpus.mjs) through the real OpenClaw gateway's exec and wait tools, as an
// embedded agent run reaches them (createAgentHarnessToolSurfaceRuntime), and prints one JSON
// line per cell. Needs Node >= 24.16 (openclaw's engines): the tests run it with the Node 24 of
// tools/node24.
//   node driver.mjs bundled            upstream's bundled QuickJS-WASI executor (code-mode-quickjs)
//   node driver.mjs plugin <dir>       the plugin at <dir> as the `quickjs` executor
//   node driver.mjs node               upstream's node:vm executor
// Set OPENCLAW_STATE_DIR and OPENCLAW_HOME to empty temp dirs. CELLS=name1,name2 runs a subset.
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { cells } from './corpus.mjs'

const require = createRequire(import.meta.url)
// The gateway harness is the plugin-author kit's (lib/openclaw-gateway.js: surfaces, agent tools,
// following a cell), shared with the bench.
const harness = require('../../lib/openclaw-gateway.js')
const [kind = 'bundled', dir] = process.argv.slice(2)
const gateway = await harness.loadGateway(harness.requireOpenClaw({ who: 'the executor driver' }))

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export async function makeTools() {
  const setPluginToolMeta = gateway.setPluginToolMeta
  const setMcpResult = gateway.setMcpCodeModeGuestResultFromAgentResult
  const parameters = {
    type: 'object',
    properties: { x: { type: 'number' }, ms: { type: 'number' }, n: { type: 'number' }, q: { type: 'string' } },
    additionalProperties: false,
  }
  // A text-only result, an MCP result, or the details with their JSON (cut) as the text.
  const result = (details) => {
    if (details && details.__contentOnly) return { content: [{ type: 'text', text: details.text }] }
    if (details && details.__mcp) return setMcpResult({ content: [{ type: 'text', text: details.text }] })
    return { content: [{ type: 'text', text: JSON.stringify(details).slice(0, 200) }], details }
  }
  const tool = (name, description, run, extra = {}) => harness.agentTool({ name, description, run, parameters, result, ...extra })
  const tools = [
    tool('add_one', 'Add one to x', async (a) => ({ x: (a.x ?? 0) + 1 })),
    tool('slow', 'Answer after ms milliseconds', async (a) => {
      await sleep(a.ms ?? 100)
      return { slept: a.ms }
    }),
    tool('fail_tool', 'Always fails', async () => {
      throw new Error('tool failed on purpose')
    }),
    tool('text_only', 'Returns text content only', async () => ({ __contentOnly: true, text: 'only text' })),
    tool('big_value', 'Returns n items', async (a) => ({ items: Array.from({ length: a.n ?? 10 }, (_, i) => ({ i })) })),
  ]
  const mcp = tool('docs__lookup', 'Look up documentation pages', async (a) => ({ __mcp: true, text: `docs for ${a.q}` }), {
    resultContentSource: 'network',
  })
  setPluginToolMeta(mcp, {
    pluginId: 'bundle-mcp',
    optional: false,
    mcp: { serverName: 'docs', safeServerName: 'docs', toolName: 'lookup', operation: 'tool' },
  })
  tools.push(mcp)
  return tools
}

export function makeRuntime(kind, dir, codeMode, tools, name) {
  return harness.createSurface(gateway, {
    executor: kind === 'plugin' ? 'native' : kind,
    pluginDir: dir,
    codeMode,
    tools,
    name,
    sessionKey: `agent:main:${name}`,
    sessionId: name,
    runId: `${name}-run`,
  })
}

/** What a cell's outcome is compared on. */
export function outcome(d) {
  return { status: d.status, code: d.code, value: d.value, output: d.output, error: typeof d.error === 'string' ? d.error : undefined }
}

export async function runCell(runtime, cell, n) {
  const controller = new AbortController()
  let timer
  if (cell.abortAfterMs) timer = setTimeout(() => controller.abort(new Error('aborted by the test')), cell.abortAfterMs)
  const results = await harness.followCell(runtime, cell.code, {
    maxLegs: 1 + (cell.waits ?? 0),
    signal: controller.signal,
    callId: (leg) => (leg === 0 ? `c${n}` : `w${n}-${leg}`),
    // A leg that throws is a result (`threw`), which ends the cell; the abort timer is for the exec.
    leg: async (run, leg) => {
      try {
        return await run()
      } catch (error) {
        return { status: 'threw', error: String(error?.message ?? error) }
      } finally {
        if (leg === 0) clearTimeout(timer)
      }
    },
  })
  return { name: cell.name, legs: results.map((d) => d.status), ...outcome(results.at(-1)) }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const only = process.env.CELLS ? new Set(process.env.CELLS.split(',')) : undefined
  const tools = await makeTools()
  const runtimes = {
    default: makeRuntime(kind, dir, { timeoutMs: 10_000 }, tools, 'corpus'),
    short: makeRuntime(kind, dir, { timeoutMs: 1_000 }, tools, 'corpus-short'),
  }
  // The first cell of a process pays for loading the executor: not part of any cell's budget.
  for (const runtime of Object.values(runtimes)) await runCell(runtime, { name: 'warm-up', code: 'return 0' }, 0)
  let n = 0
  for (const cell of cells) {
    if (only && !only.has(cell.name)) continue
    const result = await runCell(runtimes[cell.runtime ?? 'default'], cell, ++n)
    process.stdout.write(`${JSON.stringify(result)}\n`)
  }
  for (const runtime of Object.values(runtimes)) runtime.rt.cleanup?.()
  process.exit(0)
}
