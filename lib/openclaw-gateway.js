// @ts-check
'use strict'
// The real OpenClaw gateway's code-mode tool surface, embedded: the installed `openclaw` package
// builds its `exec`/`wait` tools through openclaw/plugin-sdk/agent-harness-tool-runtime (the path
// an embedded agent run takes) around a plugin's agent tools and MCP servers, with this package
// (or upstream's bundled QuickJS-WASI plugin, or upstream's node:vm executor) as the executor.
// One harness for the plugin-author kit (lib/testing.js createOpenClawTestRun, `code-mode run
// --openclaw`, `code-mode check --openclaw`), the executor test driver (__test__/openclaw/driver.mjs)
// and the bench (bench/lib/openclaw-inside.mjs).
//
// openclaw is ESM and needs a newer Node than this package: nothing here loads it before
// requireOpenClaw() has found it and checked its version and the running Node against it.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createRequire } = require('node:module')
const { pathToFileURL } = require('node:url')
const { followWaits } = require('./follow-waits.js')

// openclaw ships no types for what this harness reaches; these are the parts it uses.
/**
 * An OpenClaw agent tool: what a plugin gives the gateway, and what its tool surface gives back
 * (`exec` and `wait` resolve to `{ content, details }`).
 * @typedef {{ name: string, label?: string, description?: string, parameters?: unknown, execute(toolCallId: string, params: any, signal?: AbortSignal, onUpdate?: (partial: unknown) => void): Promise<any> | any, [key: string]: unknown }} AgentTool
 */
/**
 * What openclaw's `executeTool` seam receives for one nested call.
 * @typedef {{ tool: AgentTool, toolName: string, toolCallId: string, input: unknown, signal?: AbortSignal, onUpdate?: (partial: unknown) => void, parentToolCallId?: string, source?: string, sourceName?: string, acceptResultBeforeProjection(result: unknown): unknown }} ExecuteToolParams
 */
/** @typedef {{ compactTools(tools: AgentTool[]): { tools: AgentTool[] }, cleanup?(): void }} SurfaceRuntime */
/**
 * openclaw's modules the harness uses ({@link loadGateway}).
 * @typedef {object} Gateway
 * @property {string} version
 * @property {string} dist
 * @property {(options: object) => SurfaceRuntime} createAgentHarnessToolSurfaceRuntime
 * @property {(tool: object, meta: object) => void} setPluginToolMeta
 * @property {(options: { workspaceDir: string, cfg: object }) => Promise<{ tools: AgentTool[], diagnostics?: unknown[], dispose(): Promise<void> }>} createBundleMcpToolRuntime
 * @property {(raw: unknown, where: { mcpServer: string, mcpTool: string }) => unknown} projectMcpCallToolResult
 * @property {(result: unknown) => unknown} setMcpCodeModeGuestResultFromAgentResult
 */
/**
 * One gateway tool surface ({@link createSurface}).
 * @typedef {{ rt: SurfaceRuntime, exec: AgentTool, wait: AgentTool, tools: AgentTool[], execDescription: string }} Surface
 */
/** @typedef {'native' | 'bundled' | 'node'} Executor */
/** @typedef {import('./testing').OpenClawRecordedCall} RecordedCall */
/** @typedef {import('./testing').OpenClawCodeModeResult} CodeModeDetails */

/** The oldest openclaw whose gateway surface this harness drives. */
const MIN_OPENCLAW = '2026.9.6'
const PACKAGE_ROOT = path.resolve(__dirname, '..')
const TOOL_SURFACE = 'openclaw/plugin-sdk/agent-harness-tool-runtime'
/** Executors a caller may choose: this package, upstream's bundled QuickJS-WASI plugin, upstream's node:vm. */
const EXECUTORS = ['native', 'bundled', 'node']
/**
 * The `tools.codeMode` keys openclaw 2026.9.6 reads (its resolveCodeModeConfig); the executor
 * receives them resolved. __test__/openclaw-kit.spec.ts checks this list against what the
 * gateway hands an executor.
 */
const OPENCLAW_CONFIG_KEYS = [
  'enabled',
  'executor',
  'mode',
  'timeoutMs',
  'memoryLimitBytes',
  'maxOutputBytes',
  'maxSnapshotBytes',
  'maxPendingToolCalls',
  'snapshotTtlSeconds',
  'searchDefaultLimit',
  'maxSearchLimit',
]

/** A refusal with a stable `code`: what is missing and the command that fixes it, in one line. */
class OpenClawKitError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message)
    this.name = 'OpenClawKitError'
    this.code = code
  }
}

/**
 * `[major, minor, patch]` of a version text, or undefined.
 * @param {unknown} text
 * @returns {[number, number, number] | undefined}
 */
function parseVersion(text) {
  const m = /^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(String(text))
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined
}

/**
 * @param {string} a
 * @param {string} b
 * @returns {number} negative, 0 or positive as `a` is older, the same or newer
 */
function compareVersions(a, b) {
  const pa = parseVersion(a) ?? [0, 0, 0]
  const pb = parseVersion(b) ?? [0, 0, 0]
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i]
  return 0
}

/**
 * True when `version` is in the npm range `range` (`||` of space-separated `>=`, `>`, `<=`, `<`,
 * `=`, `^`, `~` comparators, as package.json `engines` write them). A range this cannot read
 * counts as satisfied: the harness refuses only what it can name.
 * @param {string} version
 * @param {unknown} range
 */
function satisfies(version, range) {
  if (typeof range !== 'string' || range.trim() === '' || range.trim() === '*') return true
  const v = parseVersion(version)
  if (!v) return true
  /**
   * @param {string} comparator
   * @returns {boolean | undefined} undefined when it cannot be read
   */
  const test = (comparator) => {
    const m = /^(>=|<=|>|<|=|\^|~)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:-[\w.]+)?$/.exec(comparator)
    if (!m) return undefined
    const [, op = '=', major, minor, patch] = m
    /** @param {string | undefined} p */
    const wild = (p) => p === undefined || p === 'x' || p === '*'
    const base = [Number(major), wild(minor) ? 0 : Number(minor), wild(patch) ? 0 : Number(patch)]
    const c = compareVersions(v.join('.'), base.join('.'))
    switch (op) {
      case '>=':
        return c >= 0
      case '>':
        return c > 0
      case '<=':
        return c <= 0
      case '<':
        return c < 0
      case '^': {
        const upper = base[0] > 0 ? [base[0] + 1, 0, 0] : base[1] > 0 ? [0, base[1] + 1, 0] : [0, 0, base[2] + 1]
        return c >= 0 && compareVersions(v.join('.'), upper.join('.')) < 0
      }
      case '~':
        return c >= 0 && compareVersions(v.join('.'), [base[0], base[1] + 1, 0].join('.')) < 0
      default:
        if (wild(minor)) return v[0] === base[0]
        if (wild(patch)) return v[0] === base[0] && v[1] === base[1]
        return c === 0
    }
  }
  let readable = true
  const result = range.split('||').some((set) => {
    const comparators = set.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1').split(/\s+/).filter(Boolean)
    return comparators.every((comparator) => {
      const ok = test(comparator)
      if (ok === undefined) readable = false
      return ok !== false
    })
  })
  return readable ? result : true
}

/**
 * The installed openclaw: `{ dir, version, engines }`, looked up from this package (openclaw is
 * its peer) and then from `cwd`, or undefined.
 * @param {{ from?: string[] }} [options]
 * @returns {{ dir: string, version: string, engines: string | undefined } | undefined}
 */
function findOpenClaw({ from = [path.join(PACKAGE_ROOT, 'package.json'), path.join(process.cwd(), 'package.json')] } = {}) {
  for (const base of from) {
    let candidates
    try {
      candidates = createRequire(base).resolve.paths('openclaw') ?? []
    } catch {
      continue
    }
    for (const nodeModules of candidates) {
      const dir = path.join(nodeModules, 'openclaw')
      let pkg
      try {
        pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
      } catch {
        continue
      }
      if (pkg.name !== 'openclaw') continue
      return { dir: fs.realpathSync(dir), version: String(pkg.version), engines: pkg.engines?.node }
    }
  }
  return undefined
}

const INSTALL = 'npm install --save-dev openclaw@latest'

/**
 * The installed openclaw, checked: installed, at least MIN_OPENCLAW, and the running Node inside
 * its `engines`. Throws an OpenClawKitError (`ERR_CODE_MODE_OPENCLAW_MISSING`,
 * `ERR_CODE_MODE_OPENCLAW_VERSION`, `ERR_CODE_MODE_NODE_VERSION`) otherwise.
 * @param {{ from?: string[], nodeVersion?: string, who?: string }} [options]
 */
function requireOpenClaw(options = {}) {
  const who = options.who ?? 'the OpenClaw code-mode kit'
  const found = findOpenClaw(options)
  if (!found) {
    throw new OpenClawKitError(
      'ERR_CODE_MODE_OPENCLAW_MISSING',
      `${who} runs cells through the openclaw gateway (>= ${MIN_OPENCLAW}), and openclaw is not installed: ${INSTALL}`,
    )
  }
  if (compareVersions(found.version, MIN_OPENCLAW) < 0) {
    throw new OpenClawKitError(
      'ERR_CODE_MODE_OPENCLAW_VERSION',
      `${who} needs openclaw >= ${MIN_OPENCLAW}; found ${found.version} in ${found.dir}: ${INSTALL}`,
    )
  }
  const nodeVersion = options.nodeVersion ?? process.versions.node
  if (found.engines && !satisfies(nodeVersion, found.engines)) {
    throw new OpenClawKitError(
      'ERR_CODE_MODE_NODE_VERSION',
      `${who} runs openclaw ${found.version}, which needs Node ${found.engines}; this is Node ${nodeVersion} (${process.execPath}): install Node 24 (for example \`nvm install 24\`) and run with it`,
    )
  }
  return found
}

/**
 * openclaw keeps its state (config, installed plugins, credentials) under ~/.openclaw unless
 * OPENCLAW_STATE_DIR and OPENCLAW_HOME say otherwise. A test must not read the developer's own
 * gateway set-up: each one not already set points at a fresh directory of this process
 * (removed when it exits). Set both yourself to choose the directories.
 */
function isolateState() {
  for (const name of ['OPENCLAW_STATE_DIR', 'OPENCLAW_HOME']) {
    if (process.env[name]) continue
    process.env[name] = temporaryDir(`code-mode-${name === 'OPENCLAW_HOME' ? 'home' : 'state'}-`)
  }
}

/** Directories made here and not removed yet: what is left of them goes when the process exits. */
const madeDirs = new Set()

/**
 * A new directory under the temporary directory, removed when the process exits if no one has
 * (a test that forgets its cleanup leaves nothing behind).
 * @param {string} prefix
 */
function temporaryDir(prefix) {
  if (!temporaryDir.hooked) {
    temporaryDir.hooked = true
    const remove = () => {
      for (const dir of madeDirs) {
        // One that cannot go (a child still in it, on Windows) must not keep the others, or
        // throw from an exit listener.
        try {
          fs.rmSync(dir, { recursive: true, force: true })
        } catch {}
      }
      madeDirs.clear()
    }
    process.once('exit', remove)
    // vitest ends its fork workers with SIGTERM, whose default action skips 'exit' listeners:
    // remove the directories then, and end as SIGTERM would unless someone else handles it.
    process.once('SIGTERM', (signal) => {
      remove()
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
    })
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  madeDirs.add(dir)
  return dir
}
temporaryDir.hooked = false

/**
 * Removes a directory made by {@link temporaryDir}.
 * @param {string} dir
 */
function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true })
  madeDirs.delete(dir)
}

/** @type {Map<string, Promise<Gateway>>} */
const modules = new Map()

/**
 * openclaw's modules the harness uses: the public tool-surface entry point, and the internals a
 * gateway uses to mark an agent tool as a plugin's or an MCP server's (`plugins/tool-metadata`),
 * to start its configured MCP servers (`agents/agent-bundle-mcp-materialize`) and to project an
 * MCP result (`mcp-content`, found by its function's name in the hashed chunk).
 * @param {{ dir: string, version: string }} found
 * @returns {Promise<Gateway>}
 */
function loadGateway(found) {
  if (!modules.has(found.dir)) {
    const load = async () => {
      isolateState()
      const dist = path.join(found.dir, 'dist')
      /** @param {string} relative */
      const file = (relative) => pathToFileURL(path.join(dist, relative)).href
      const surface = await import(pathToFileURL(createRequire(path.join(found.dir, 'package.json')).resolve(TOOL_SURFACE)).href)
      /**
       * @param {Record<string, unknown>} mod
       * @param {string} name
       * @param {string} where
       * @returns {any} the function (typed by {@link Gateway})
       */
      const named = (mod, name, where) => {
        const fn = mod[name] ?? Object.values(mod).find((f) => typeof f === 'function' && f.name === name)
        if (typeof fn !== 'function') {
          throw new OpenClawKitError(
            'ERR_CODE_MODE_OPENCLAW_VERSION',
            `openclaw ${found.version} has no ${name} in ${where}: this @openclaw/code-mode drives openclaw ${MIN_OPENCLAW}'s gateway`,
          )
        }
        return fn
      }
      /**
       * @param {string} prefix
       * @param {string} name
       */
      const chunk = async (prefix, name) => {
        const entry = fs.readdirSync(dist).find((f) => f.startsWith(`${prefix}-`) && f.endsWith('.mjs'))
        if (!entry) return named({}, name, `dist/${prefix}-*.mjs`)
        return named(await import(file(entry)), name, `dist/${entry}`)
      }
      const metadata = await import(file('plugins/tool-metadata.js'))
      const mcp = await import(file('agents/agent-bundle-mcp-materialize.js'))
      return {
        version: found.version,
        dist,
        createAgentHarnessToolSurfaceRuntime: named(surface, 'createAgentHarnessToolSurfaceRuntime', TOOL_SURFACE),
        setPluginToolMeta: named(metadata, 'setPluginToolMeta', 'dist/plugins/tool-metadata.js'),
        createBundleMcpToolRuntime: named(mcp, 'createBundleMcpToolRuntime', 'dist/agents/agent-bundle-mcp-materialize.js'),
        projectMcpCallToolResult: await chunk('mcp-content', 'projectMcpCallToolResult'),
        setMcpCodeModeGuestResultFromAgentResult: await chunk('mcp-content', 'setMcpCodeModeGuestResultFromAgentResult'),
      }
    }
    const loading = load()
    loading.catch(() => modules.delete(found.dir))
    modules.set(found.dir, loading)
  }
  return /** @type {Promise<Gateway>} */ (modules.get(found.dir))
}

/**
 * `plugins` config selecting the executor: for `native`, the plugin at `pluginDir` (default this
 * package) owns `quickjs`, and the bundled owner is disabled (exactly one owner may be enabled).
 * @param {Executor} executor
 * @param {string} [pluginDir]
 */
function pluginsConfig(executor, pluginDir = PACKAGE_ROOT) {
  if (executor !== 'native') return undefined
  const id = JSON.parse(fs.readFileSync(path.join(pluginDir, 'openclaw.plugin.json'), 'utf8')).id
  return { load: { paths: [path.resolve(pluginDir)] }, entries: { 'code-mode-quickjs': { enabled: false }, [id]: { enabled: true } } }
}

/**
 * The gateway's executor seam as an embedded run has it: hooks and policy run inside `tool.execute`.
 * @param {ExecuteToolParams} p
 */
const runTool = async (p) => p.acceptResultBeforeProjection(await p.tool.execute(p.toolCallId, p.input, p.signal, p.onUpdate))

let nextSurface = 0

/**
 * One gateway tool surface: `{ rt, exec, wait, tools, execDescription }`. `codeMode` is
 * `tools.codeMode` (enabled and the executor are set here), `tools` the agent tools to hide
 * behind exec/wait, `executeTool` the seam (default: run the tool).
 * @param {Gateway} gateway
 * @param {{ executor?: Executor, pluginDir?: string, codeMode?: object, tools?: AgentTool[], executeTool?: (p: ExecuteToolParams) => Promise<unknown>, name?: string, agentId?: string, sessionId?: string, sessionKey?: string, runId?: string, mcp?: object }} [options]
 * @returns {Surface}
 */
function createSurface(gateway, { executor = 'native', pluginDir, codeMode = {}, tools = [], executeTool = runTool, name, agentId = 'main', sessionId, sessionKey, runId, mcp } = {}) {
  const id = name ?? `code-mode-kit-${process.pid}-${++nextSurface}`
  const rt = gateway.createAgentHarnessToolSurfaceRuntime({
    config: {
      tools: { codeMode: { ...codeMode, enabled: true, executor: executor === 'node' ? 'node' : 'quickjs' } },
      plugins: pluginsConfig(executor, pluginDir),
      ...(mcp ? { mcp } : {}),
    },
    agentId,
    sessionKey: sessionKey ?? `agent:${agentId}:${id}`,
    sessionId: sessionId ?? id,
    runId: runId ?? `${id}-run`,
    modelProvider: 'fake',
    modelId: 'fake-model',
    modelToolsEnabled: true,
    forceCodeModeControls: true,
    executeTool,
  })
  const surface = rt.compactTools(tools).tools
  const exec = surface.find((t) => t.name === 'exec')
  const wait = surface.find((t) => t.name === 'wait')
  if (!exec || !wait) {
    rt.cleanup?.()
    throw new Error(`openclaw ${gateway.version} gave no code-mode exec/wait tools (it showed: ${surface.map((t) => t.name).join(', ') || 'none'})`)
  }
  return { rt, exec, wait, tools: surface, execDescription: exec.description ?? '' }
}

/**
 * An agent tool that answers with what `run(args)` resolves to: by default its value as the
 * result's `details` and its JSON as the text (`result` makes another result of it). Any other
 * field of `spec` (`resultContentSource`…) is the tool's too.
 * @param {{ name: string, label?: string, description: string, run: (args: any) => unknown, parameters?: object, result?: (details: any) => unknown, [field: string]: unknown }} spec
 *   `parameters` is the JSON Schema of the arguments (default: any object)
 * @returns {AgentTool}
 */
function agentTool({ name, label = name, description, run, parameters = { type: 'object', properties: {} }, result = toolResult, ...rest }) {
  return {
    name,
    label,
    description,
    parameters,
    execute: async (/** @type {string} */ _id, /** @type {unknown} */ args) => result(await run(args ?? {})),
    ...rest,
  }
}

/**
 * An agent tool's result for `details`: its JSON as the text.
 * @param {unknown} details
 */
function toolResult(details) {
  return { content: [{ type: 'text', text: JSON.stringify(details) ?? 'null' }], details }
}

/**
 * Follows one cell through a surface's `exec` and `wait` tools ({@link createSurface},
 * {@link createGateway}) as lib/follow-waits.js follows cells: resolves to the `details` of each
 * leg, in order.
 * @param {{ exec: AgentTool, wait: AgentTool }} surface
 * @param {string} code
 * @param {object} [options]
 * @param {number} [options.maxLegs] at most this many results (default: until the cell ends)
 * @param {AbortSignal} [options.signal] handed to every leg
 * @param {(leg: number) => string} [options.callId] the model's call id of leg `leg` (0 is the exec)
 * @param {(run: () => Promise<CodeModeDetails>, leg: number) => Promise<CodeModeDetails>} [options.leg]
 *   runs each leg (to time it, or to make a throw a result)
 * @returns {Promise<CodeModeDetails[]>}
 */
function followCell(surface, code, { maxLegs, signal, callId = (n) => (n === 0 ? 'exec' : `wait_${n}`), leg = (run) => run() } = {}) {
  /** @param {Promise<{ details?: unknown }>} answer */
  const details = async (answer) => /** @type {CodeModeDetails} */ ((await answer).details)
  return followWaits(
    () => leg(() => details(surface.exec.execute(callId(0), { code }, signal)), 0),
    (runId, taken) => leg(() => details(surface.wait.execute(callId(taken), { runId }, signal)), taken),
    maxLegs,
  )
}

/** @type {Map<string, Promise<void>>} */
const warm = new Map()

/**
 * The first cell of a process loads the executor (about a second for the bundled one), which
 * would be charged to that cell's budget: one throwaway cell per executor and process first, so
 * that a test's short `timeoutMs` measures its own cell.
 * @param {Gateway} gateway
 * @param {Executor} executor
 * @param {string} [pluginDir]
 * @returns {Promise<void>}
 */
function warmUp(gateway, executor, pluginDir) {
  const key = `${gateway.dist}\0${executor}\0${pluginDir ?? ''}`
  if (!warm.has(key)) {
    const run = async () => {
      const noop = agentTool({ name: 'code_mode_kit_warm_up', label: 'warm-up', description: 'Loads the executor.', run: () => null })
      const s = createSurface(gateway, { executor, pluginDir, codeMode: { timeoutMs: 60_000 }, tools: [noop] })
      try {
        const d = (await s.exec.execute('warm-up', { code: 'return 0' })).details
        if (d?.status !== 'completed') {
          throw new Error(`the ${executor} executor did not run a cell: ${d?.code ?? d?.status}: ${String(d?.error ?? '').split('\n')[0]}`)
        }
      } finally {
        s.rt.cleanup?.()
      }
    }
    const warming = run()
    warming.catch(() => warm.delete(key))
    warm.set(key, warming)
  }
  return /** @type {Promise<void>} */ (warm.get(key))
}

/**
 * `{ name: { command, args, env, cwd } }`, as `mcp.servers` in openclaw's config.
 * @param {unknown} servers
 * @returns {Record<string, { command: string }> | undefined}
 */
function checkMcpServers(servers) {
  if (servers === undefined) return undefined
  if (servers === null || typeof servers !== 'object' || Array.isArray(servers)) {
    throw new TypeError('mcpServers must be an object: { "<server name>": { command, args?, env?, cwd? } }')
  }
  for (const [name, server] of Object.entries(/** @type {Record<string, any>} */ (servers))) {
    if (!server || typeof server !== 'object' || typeof server.command !== 'string' || server.command === '') {
      throw new TypeError(`mcpServers["${name}"] needs a command: { command: "node", args: ["server.js"] }`)
    }
  }
  return Object.keys(servers).length > 0 ? /** @type {Record<string, { command: string }>} */ (servers) : undefined
}

/**
 * Starts `servers` the way the gateway starts its configured MCP servers and returns its agent
 * tools (`<server>__<tool>`, marked as MCP tools) with `dispose()`. A server that fails to
 * start is an error naming it.
 * @param {Gateway} gateway
 * @param {Record<string, object>} servers
 * @returns {Promise<{ tools: AgentTool[], dispose(): Promise<void> }>}
 */
async function startMcpServers(gateway, servers) {
  const workspaceDir = temporaryDir('code-mode-kit-workspace-')
  let runtime
  try {
    runtime = await gateway.createBundleMcpToolRuntime({ workspaceDir, cfg: { mcp: { servers } } })
  } catch (error) {
    removeDir(workspaceDir)
    throw error
  }
  const dispose = async () => {
    try {
      await runtime.dispose()
    } finally {
      removeDir(workspaceDir)
    }
  }
  const { getPluginToolMeta } = await import(pathToFileURL(path.join(gateway.dist, 'plugins/tool-metadata.js')).href)
  const started = new Set(runtime.tools.map((t) => getPluginToolMeta(t)?.mcp?.serverName))
  const missing = Object.keys(servers).filter((name) => !started.has(name))
  if (missing.length > 0) {
    await dispose().catch(() => {})
    const diagnostics = (runtime.diagnostics ?? []).map((d) =>
      typeof d === 'string' ? d : (/** @type {{ message?: string } | null} */ (d)?.message ?? JSON.stringify(d)),
    )
    throw new OpenClawKitError(
      'ERR_CODE_MODE_MCP_SERVER',
      `MCP server${missing.length === 1 ? '' : 's'} ${missing.map((n) => `"${n}"`).join(', ')} gave no tools (failed to start or has none)${diagnostics.length ? `: ${diagnostics.join('; ')}` : ''}`,
    )
  }
  return { tools: runtime.tools, dispose }
}

/**
 * Throws a TypeError naming the first tool that is not an agent tool.
 * @param {unknown} tools
 * @returns {asserts tools is AgentTool[]}
 */
function checkAgentTools(tools) {
  if (!Array.isArray(tools)) throw new TypeError('tools must be an array of OpenClaw agent tools ({ name, description, parameters, execute })')
  const names = new Set()
  for (const [i, tool] of tools.entries()) {
    const label = typeof tool?.name === 'string' ? `tool "${tool.name}"` : `tools[${i}]`
    if (!tool || typeof tool !== 'object') throw new TypeError(`${label} is not an object`)
    if (typeof tool.name !== 'string' || tool.name === '') throw new TypeError(`${label} needs a name`)
    if (typeof tool.execute !== 'function') throw new TypeError(`${label} needs execute(toolCallId, params, signal, onUpdate)`)
    if (tool.parameters !== undefined && (tool.parameters === null || typeof tool.parameters !== 'object')) {
      throw new TypeError(`${label}: parameters must be a JSON Schema object`)
    }
    if (names.has(tool.name)) throw new TypeError(`${label} is given twice`)
    names.add(tool.name)
  }
}

/**
 * The kit's gateway: the given agent tools (marked as plugin `pluginId`'s, as the gateway's
 * plugin loader marks a plugin's tools) and MCP servers behind the real exec/wait tools, with
 * every nested call reported to `onCall` (a record filled in with `result` or `error`).
 * Resolves to `{ exec, wait, execDescription, tools, cleanup() }`.
 * @param {object} [options]
 * @param {string} [options.who] who asks, for refusals (`createOpenClawTestRun`, `run --openclaw`)
 * @param {AgentTool[]} [options.tools]
 * @param {unknown} [options.mcpServers] `{ name: { command, args?, env?, cwd? } }`
 * @param {{ tool: AgentTool, server: string, toolName: string }[]} [options.mcpTools] agent tools to mark as an MCP server's
 * @param {object} [options.config] `tools.codeMode`
 * @param {Executor} [options.executor]
 * @param {string | null | ((tool: AgentTool) => string | null)} [options.pluginId] null: a core tool
 * @param {string} [options.pluginDir]
 * @param {string} [options.agentId]
 * @param {string} [options.sessionId]
 * @param {string} [options.sessionKey]
 * @param {string} [options.runId]
 * @param {(record: RecordedCall) => void} [options.onCall]
 */
async function createGateway(options = {}) {
  const executor = options.executor ?? 'native'
  if (!EXECUTORS.includes(executor)) throw new TypeError(`executor must be one of ${EXECUTORS.join(', ')}; got ${JSON.stringify(executor)}`)
  const tools = options.tools ?? []
  checkAgentTools(tools)
  const servers = checkMcpServers(options.mcpServers)
  const found = requireOpenClaw({ who: options.who })
  const gateway = await loadGateway(found)
  // A plugin's tools carry their plugin id (core tools none): `pluginId` is one id for all, or
  // a function of the tool (null: a core tool).
  for (const tool of tools) {
    const pluginId = typeof options.pluginId === 'function' ? options.pluginId(tool) : options.pluginId === undefined ? 'test-plugin' : options.pluginId
    if (pluginId !== null) gateway.setPluginToolMeta(tool, { pluginId, optional: false })
  }
  for (const { tool, server, toolName } of options.mcpTools ?? []) {
    gateway.setPluginToolMeta(tool, { pluginId: 'bundle-mcp', optional: false, mcp: { serverName: server, safeServerName: server, toolName, operation: 'tool' } })
  }
  await warmUp(gateway, executor, options.pluginDir)
  const mcp = servers ? await startMcpServers(gateway, servers) : undefined
  const onCall = options.onCall
  /** @param {ExecuteToolParams} p */
  const executeTool = async (p) => {
    // `source` is set next, after `parentToolCallId` (the order a record prints in).
    const record = /** @type {RecordedCall} */ ({ name: p.toolName, input: p.input, toolCallId: p.toolCallId })
    if (p.parentToolCallId !== undefined) record.parentToolCallId = p.parentToolCallId
    record.source = /** @type {RecordedCall['source']} */ (p.source)
    if (p.sourceName !== undefined) record.sourceName = p.sourceName
    onCall?.(record)
    const started = performance.now()
    let result
    try {
      result = await p.tool.execute(p.toolCallId, p.input, p.signal, p.onUpdate)
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error)
      throw error
    } finally {
      Object.defineProperty(record, 'durationMs', { value: Math.round((performance.now() - started) * 10) / 10, enumerable: false })
    }
    record.result = result
    return p.acceptResultBeforeProjection(result)
  }
  let surface
  try {
    surface = createSurface(gateway, {
      executor,
      pluginDir: options.pluginDir,
      codeMode: options.config ?? {},
      tools: [...tools, ...(options.mcpTools ?? []).map((m) => m.tool), ...(mcp?.tools ?? [])],
      executeTool,
      agentId: options.agentId,
      sessionId: options.sessionId,
      sessionKey: options.sessionKey,
      runId: options.runId,
    })
  } catch (error) {
    await mcp?.dispose().catch(() => {})
    throw error
  }
  let closed = false
  return {
    openclaw: found.version,
    executor,
    exec: surface.exec,
    wait: surface.wait,
    tools: surface.tools,
    execDescription: surface.execDescription,
    gateway,
    async cleanup() {
      if (closed) return
      closed = true
      try {
        surface.rt.cleanup?.()
      } finally {
        await mcp?.dispose()
      }
    },
  }
}

module.exports = {
  MIN_OPENCLAW,
  EXECUTORS,
  OPENCLAW_CONFIG_KEYS,
  PACKAGE_ROOT,
  OpenClawKitError,
  compareVersions,
  satisfies,
  findOpenClaw,
  requireOpenClaw,
  isolateState,
  loadGateway,
  pluginsConfig,
  createSurface,
  agentTool,
  toolResult,
  followCell,
  warmUp,
  startMcpServers,
  createGateway,
}
