// @ts-check
'use strict'
// `code-mode run <cell>`: runs one cell against a catalog from a JSON file and/or MCP servers,
// follows `waiting` with `wait`, and reports output, value, nested calls and telemetry.
// `code-mode check <cell>`: type-checks a cell against the same catalog's guest types (lib/check.js).
// With --openclaw both go through the real OpenClaw gateway (lib/openclaw-gateway.js): the guest
// API OpenClaw users run, with this package as its `quickjs` executor.

const { closeSync, existsSync, openSync, readFileSync, readSync } = require('node:fs')
const { basename, extname, join, resolve } = require('node:path')

const { followWaits } = require('./follow-waits.js')
const { MAX_CODE_BYTES } = require('./generated/protocol.js')
const { MAX_TIMER_MS } = require('./bounded.js')
const { configProblems } = require('./config-check.js')

const ROOT = resolve(__dirname, '..')

/**
 * The command line's options.
 * @typedef {object} CliOptions
 * @property {string[]} mcp `--mcp` commands
 * @property {boolean} json
 * @property {number} maxLegs
 * @property {boolean} openclaw
 * @property {boolean} [help]
 * @property {boolean} [version]
 * @property {string} [tools] the `--tools` file
 * @property {string} [config] the `--config` JSON text
 * @property {string} [language]
 * @property {string} [executor]
 */
/** @typedef {{ stdout: { write(text: string): unknown }, stderr: { write(text: string): unknown } }} Io */
/** A `--tools` file's catalog (checked by the runtime) and canned answers. @typedef {{ tools: any[], responses: Record<string, unknown> }} ToolsFile */
/** @typedef {{ id: string, name: string }} ToolCallName */
/** @typedef {{ toolId: string, ok: boolean, durationMs: number | undefined, error?: string }} CallSummary */
/**
 * What `run` reports: the last result's fields, and the legs, output and calls of all of them.
 * @typedef {object} Report
 * @property {string} status
 * @property {unknown} [value]
 * @property {string} [code]
 * @property {string} [failurePhase]
 * @property {string} [error]
 * @property {string} [runId]
 * @property {string} [reason]
 * @property {number} legs
 * @property {number} durationMs
 * @property {import('../index').CodeModeOutput[]} output
 * @property {CallSummary[]} calls
 * @property {any} telemetry the result's telemetry (code mode's, or the gateway's)
 */
/**
 * One exec or wait result, as `run` reads it (code mode's `CodeModeResult`, or the gateway's details).
 * @typedef {{ status: string, value?: unknown, code?: string, failurePhase?: string, error?: string, runId?: string, reason?: string, output?: import('../index').CodeModeOutput[], telemetry?: unknown }} LegResult
 */

/**
 * The message of a thrown value.
 * @param {unknown} error
 */
const messageOf = (error) => (error instanceof Error ? error.message : String(error))

const HELP = `Usage: code-mode run <cell.js|cell.ts> [options]
       code-mode check <cell.js|cell.ts> [--tools <file>] [--mcp <command>] [--language <lang>] [--json]
       code-mode run|check --openclaw <cell.js> [--tools <file>] [--mcp <command>] [options]

run     Runs one code-mode cell the way a gateway would: the tools are hidden behind exec/wait,
        the cell reaches them through tools.*, MCP.* and namespaces, and every "waiting" result
        is followed with wait until the cell completes or fails.
check   Type-checks one cell as the runtime runs it (the body of an async function: top-level
        await and return are fine) against the guest API (guest.d.ts), the run's tools.<name>
        shortcuts typed from their parameters, and the MCP declarations the runtime renders.
        Needs the "typescript" package (5.x, 6.x or 7.x).

The cell file may hold at most ${MAX_CODE_BYTES} bytes (what exec accepts); a longer one is refused.

--openclaw          Run or check the cell through the real OpenClaw gateway (the installed
                    "openclaw" package, >= 2026.9.6, under Node >= 24.16), with this package as
                    its quickjs executor: the guest API OpenClaw users run (every tool an async
                    global, catalog.search, results, MCP; plain JavaScript only). check then uses
                    guest-openclaw.d.ts and the declarations the gateway gives the executor
                    (results.d.ts, mcp/*.d.ts, tools/<name>.d.ts).

Options:
  --tools <file>      JSON file with the catalog and canned answers:
                        { "tools": [CatalogTool, ...],
                          "responses": { "<tool name or id>": <value> } }
                      (with --openclaw a tool may also have an "outputSchema").
                      A response may be { "$error": "message" } (the tool throws) or
                      { "$delayMs": 500, "$value": <value> } (a slow tool). MCP-source tools
                      (source "mcp", sourceName the server) are answered from it too.
  --mcp <command>     Start an MCP server over stdio and add its tools; repeatable.
                      Write "name=command args" to choose the server name (MCP.<name>);
                      by default it is the package or file name without "server-"
                      (two servers of one name are refused). It gets this shell's
                      environment. Needs @modelcontextprotocol/sdk (not with --openclaw,
                      where the gateway starts it).
  --config <json>     tools.codeMode settings, e.g. '{"timeoutMs": 2000}'.
                      "enabled": true is implied. Unknown keys and values out of range are
                      named on stderr with what was used instead.
  --executor <name>   With --openclaw (run): native (this package, default), bundled (upstream's
                      QuickJS-WASI plugin) or node (upstream's node:vm executor).
  --language <lang>   javascript or typescript (default: from the file extension).
  --json              Print one JSON document instead of the readable report.
  --max-legs <n>      Take at most n exec/wait results (the exec and n-1 waits; default 100;
                      run only).
  -v, --version       Print the package version.
  -h, --help          Show this help.

Exit status: 0 when the cell completes (run) or has no type errors (check), 1 when it fails
(the error code, failure phase and message are printed) or has type errors (printed at the
cell's own line and column), 2 for a usage error, a missing or unsupported "typescript" (check)
or, with --openclaw, a missing or old "openclaw" or a Node older than it needs.
`

class UsageError extends Error {}

/**
 * The `--config` JSON object; anything else is a usage error naming the flag.
 * @param {string | undefined} text
 * @returns {Record<string, unknown>}
 */
function parseConfig(text) {
  if (text === undefined) return {}
  let config
  try {
    config = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--config: not valid JSON (${messageOf(error)}): ${text}`)
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new UsageError(`--config: expected a JSON object such as '{"timeoutMs": 2000}', got ${text}`)
  }
  return config
}

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {CliOptions} */
  const options = { mcp: [], json: false, maxLegs: 100, openclaw: false }
  const positional = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`)
      return argv[++i]
    }
    if (arg === '-h' || arg === '--help') options.help = true
    else if (arg === '-v' || arg === '--version') options.version = true
    else if (arg === '--tools') options.tools = value()
    else if (arg === '--mcp') options.mcp.push(value())
    else if (arg === '--config') options.config = value()
    else if (arg === '--language') options.language = value()
    else if (arg === '--json') options.json = true
    else if (arg === '--openclaw') options.openclaw = true
    else if (arg === '--executor') options.executor = value()
    else if (arg === '--max-legs') {
      const text = value()
      const n = Number(text)
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`--max-legs ${text}: expected a whole number of legs, 1 or more`)
      options.maxLegs = n
    } else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`)
    else positional.push(arg)
  }
  return { options, positional }
}

/**
 * Splits a command line into words, honouring single and double quotes.
 * @param {string} command
 */
function splitCommand(command) {
  const words = []
  let word = ''
  /** @type {string | null} */
  let quote = null
  let started = false
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = null
      else word += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      started = true
    } else if (/\s/.test(ch)) {
      if (started || word) words.push(word)
      word = ''
      started = false
    } else {
      word += ch
    }
  }
  if (quote) throw new UsageError(`unbalanced quote in --mcp "${command}"`)
  if (started || word) words.push(word)
  return words
}

/**
 * An `--mcp` value as the server's name and command.
 * @param {string} spec
 */
function mcpSpec(spec) {
  const named = /^([A-Za-z][\w-]*)=(.+)$/.exec(spec)
  const words = splitCommand(named ? named[2] : spec)
  if (words.length === 0) throw new UsageError('--mcp needs a command')
  const last = words.filter((w) => !w.startsWith('-')).pop() ?? words[0]
  const guessed = basename(last).replace(extname(last), '').replace(/^server-/, '').replace(/^mcp-server-/, '')
  return { name: named ? named[1] : guessed || 'mcp', command: words[0], args: words.slice(1) }
}

/**
 * Starts the `--mcp` servers into `servers`, each with this shell's environment (as if run from
 * it). Two servers of one name are refused: every call to that name would reach the first.
 * @param {string[]} specs
 * @param {{ name: string }[]} servers
 */
async function startMcpServers(specs, servers) {
  const parsed = specs.map((spec) => ({ spec, ...mcpSpec(spec) }))
  /** @type {Map<string, string>} */
  const named = new Map()
  for (const { spec, name } of parsed) {
    const first = named.get(name)
    if (first !== undefined) {
      throw new UsageError(`--mcp "${first}" and --mcp "${spec}" are both named "${name}": name one, e.g. --mcp "${name}2=${spec}"`)
    }
    named.set(name, spec)
  }
  if (parsed.length === 0) return
  const { connectMcpServer } = require('./mcp.js')
  for (const { name, command, args } of parsed) servers.push(await connectMcpServer({ name, command, args, env: process.env }))
}

/**
 * @param {string} file
 * @returns {ToolsFile}
 */
function loadTools(file) {
  let data
  try {
    data = JSON.parse(readAtMost(file, MAX_TOOLS_FILE_BYTES, 'the file', `the CLI reads at most ${MAX_TOOLS_FILE_BYTES} bytes of tools`, false))
  } catch (error) {
    throw new UsageError(`--tools ${file}: ${messageOf(error)}`)
  }
  const tools = Array.isArray(data) ? data : data.tools
  if (!Array.isArray(tools)) throw new UsageError(`--tools ${file}: expected { "tools": [...] }`)
  const responses = (data && data.responses) || {}
  if (typeof responses !== 'object' || Array.isArray(responses)) {
    throw new UsageError(`--tools ${file}: "responses" must be an object: { "<tool name or id>": <value> }`)
  }
  for (const [key, response] of Object.entries(responses)) {
    const problem = responseProblem(response)
    if (problem) throw new UsageError(`--tools ${file}: responses[${JSON.stringify(key)}]: ${problem}`)
  }
  return { tools, responses }
}

/**
 * What is wrong with a canned answer's `$error` or `$delayMs`, or undefined: checked when the
 * file is read, so a bad one is never answered as a plain value or at once.
 * @param {unknown} response
 */
function responseProblem(response) {
  if (!response || typeof response !== 'object' || Array.isArray(response)) return undefined
  if (Object.hasOwn(response, '$error') && typeof (/** @type {any} */ (response).$error) !== 'string') {
    return `"$error" must be a string (the message the tool throws), not ${JSON.stringify(/** @type {any} */ (response).$error)}`
  }
  if (Object.hasOwn(response, '$delayMs')) {
    const delay = /** @type {any} */ (response).$delayMs
    if (typeof delay !== 'number' || !(delay >= 0 && delay <= MAX_TIMER_MS)) {
      // JSON.parse reads 1e400 as Infinity, which JSON.stringify writes as null.
      const shown = typeof delay === 'number' ? String(delay) : JSON.stringify(delay)
      return `"$delayMs" must be a number of milliseconds from 0 to ${MAX_TIMER_MS}, not ${shown}`
    }
  }
  return undefined
}

/**
 * The canned answer of `call` in a `--tools` file (checked by {@link loadTools}).
 * @param {Record<string, any>} responses
 * @param {ToolCallName} call
 * @param {string | undefined} file
 */
function answer(responses, call, file) {
  const response = Object.hasOwn(responses, call.id) ? responses[call.id] : responses[call.name]
  if (response === undefined) throw new Error(`no response for ${call.name} in ${file}`)
  if (response && typeof response === 'object' && !Array.isArray(response)) {
    if (typeof response.$error === 'string') throw new Error(response.$error)
    if (typeof response.$delayMs === 'number') {
      return new Promise((ok) => setTimeout(() => ok(response.$value ?? null), response.$delayMs))
    }
  }
  return response
}

/**
 * The source of a cell file, read up to one byte past code mode's cap (MAX_CODE_BYTES, what
 * exec accepts), so that a huge file, /dev/zero, a FIFO or stdin cannot fill memory.
 * @param {string} file
 */
function readCell(file) {
  return readAtMost(file, MAX_CODE_BYTES, 'the cell', `code mode accepts at most ${MAX_CODE_BYTES} bytes of source`)
}

/**
 * The longest `--tools` file read: far past any catalog a gateway holds (10,000 tools with their
 * schemas are a few MB), and a bound on what `JSON.parse` is given.
 */
const MAX_TOOLS_FILE_BYTES = 64 * 1024 * 1024

/**
 * A file's text, read up to one byte past `max` (a device or a huge file is never read whole).
 * @param {string} file
 * @param {number} max
 * @param {string} what
 * @param {string} why
 * @param {boolean} [named] whether the refusal starts with the file's name (false: the caller names it)
 */
function readAtMost(file, max, what, why, named = true) {
  const buffer = Buffer.allocUnsafe(max + 1)
  const fd = openSync(resolve(file), 'r')
  let length = 0
  try {
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null)
      if (n === 0) break
      length += n
    }
  } finally {
    closeSync(fd)
  }
  if (length > max) throw new Error(`${named ? `${file}: ` : ''}${what} is over ${max} bytes; ${why}`)
  return buffer.toString('utf8', 0, length)
}

/** True in a source checkout of this package (npm installs ship no Rust sources). */
function sourceCheckout() {
  return existsSync(join(ROOT, 'Cargo.toml')) && existsSync(join(ROOT, 'src', 'lib.rs'))
}

/**
 * The message for an error: napi's loader says to reinstall when the addon is missing, which is
 * wrong in a source checkout, where the addon is built, not installed.
 * @param {unknown} error
 */
function errorMessage(error) {
  const message = error instanceof Error ? error.message : String(error)
  if (/Cannot find native binding/.test(message) && sourceCheckout()) {
    return `the native addon is not built in this source checkout (${ROOT}): run \`npm run build\` there (or \`npm run build:debug\` for a debug build)`
  }
  return message
}

/** This package (the native addon); loaded only when a command needs it, so --help works without it. */
function addon() {
  return require('../index.js')
}

/**
 * Warnings for `--config` (lib/config-check.js), as the CLI prints them.
 * @param {Record<string, unknown>} config
 * @param {{ openclaw?: boolean, executor?: string }} [options]
 */
function configWarnings(config, { openclaw = false, executor } = {}) {
  return configProblems(config, { openclaw, executorChosenBy: `--executor chooses it (used ${executor ?? 'native'})` }).map((problem) => `--config: ${problem}`)
}

/**
 * The language of a cell: --language, else its file extension.
 * @param {string} file
 * @param {CliOptions} options
 * @returns {'javascript' | 'typescript'}
 */
function cellLanguage(file, options) {
  const language = options.language ?? (/\.[cm]?ts$/.test(file) ? 'typescript' : 'javascript')
  if (language !== 'typescript' && language !== 'javascript') throw new UsageError(`--language ${language}: expected javascript or typescript`)
  if (options.openclaw && language !== 'javascript') {
    throw new UsageError(`--openclaw runs plain JavaScript cells only (OpenClaw's exec accepts no TypeScript): ${file} is ${language}`)
  }
  return language
}

/**
 * Runs the CLI; resolves to the exit status. `io` = { stdout, stderr } writers.
 * @param {string[]} argv
 * @param {Io} [io]
 * @returns {Promise<number>}
 */
async function main(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  let parsed
  try {
    parsed = parseArgs(argv)
  } catch (error) {
    io.stderr.write(`code-mode: ${messageOf(error)}\n\n${HELP}`)
    return 2
  }
  const { options, positional } = parsed
  if (options.version) {
    io.stdout.write(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`)
    return 0
  }
  if (options.help || positional.length === 0) {
    ;(options.help ? io.stdout : io.stderr).write(HELP)
    return options.help ? 0 : 2
  }
  const [command, file, ...rest] = positional
  if ((command !== 'run' && command !== 'check') || !file || rest.length > 0) {
    io.stderr.write(`code-mode: expected "run <cell>" or "check <cell>"\n\n${HELP}`)
    return 2
  }
  if (options.executor !== undefined && (!options.openclaw || command !== 'run')) {
    io.stderr.write(`code-mode: --executor needs "run --openclaw"\n`)
    return 2
  }
  /** @type {Awaited<ReturnType<typeof import('./mcp.js').connectMcpServer>>[]} */
  const servers = []
  try {
    const config = parseConfig(options.config)
    const language = cellLanguage(file, options)
    if (options.openclaw) {
      const { EXECUTORS } = require('./openclaw-gateway.js')
      if (options.executor !== undefined && !EXECUTORS.includes(options.executor)) {
        throw new UsageError(`--executor ${options.executor}: expected ${EXECUTORS.join(', ')}`)
      }
      return command === 'check' ? await checkOpenClaw(file, options, config, io) : await runOpenClaw(file, options, config, io)
    }
    if (command === 'check') return await check(file, options, config, language, io)
    const code = readCell(file)
    const local = options.tools ? loadTools(options.tools) : { tools: [], responses: {} }
    for (const warning of configWarnings(config)) io.stderr.write(`code-mode: ${warning}\n`)
    await startMcpServers(options.mcp, servers)
    const { CodeModeRun } = addon()
    const { forwardMcpCall } = require('./mcp.js')
    /** @type {CallSummary[]} */
    const calls = []
    const started = performance.now()
    const run = CodeModeRun.create({
      config: { ...config, enabled: true },
      runId: `cli-${process.pid}`,
      tools: [...local.tools, ...servers.flatMap((s) => s.tools)],
      // An MCP call goes to its server when one was started with --mcp, else to tools.json.
      executor: (call) =>
        call.source === 'mcp' && servers.some((s) => s.name === call.mcp?.serverName)
          ? forwardMcpCall(servers, call)
          : answer(local.responses, call, options.tools),
      onEvent: (event) => {
        if (event.type === 'tool_call_end') {
          calls.push({ toolId: event.toolId, ok: event.ok, durationMs: event.durationMs, ...(event.error ? { error: event.error } : {}) })
        }
      },
    })
    if (!run.active) throw new UsageError('no tools: give --tools and/or --mcp')
    const legs = await followWaits(
      () => run.exec({ code, language }, { toolCallId: 'cli_exec' }),
      (runId, taken) => run.wait({ runId }, { toolCallId: `cli_wait_${taken}` }),
      options.maxLegs,
    )
    return report(legs, calls, started, options, io)
  } catch (error) {
    return failure(error, io)
  } finally {
    await Promise.all(servers.map((s) => s.close().catch(() => {})))
  }
}

/**
 * Prints a caught error; resolves to its exit status (2: usage, or what the environment lacks).
 * @param {unknown} error
 * @param {Io} io
 */
function failure(error, io) {
  io.stderr.write(`code-mode: ${errorMessage(error)}\n`)
  const { OpenClawKitError } = require('./openclaw-gateway.js')
  const { TypeScriptUnavailable } = require('./check.js')
  const environment = error instanceof OpenClawKitError && error.code !== 'ERR_CODE_MODE_MCP_SERVER'
  return error instanceof UsageError || environment || error instanceof TypeScriptUnavailable ? 2 : 1
}

/**
 * The run report, printed; resolves to the exit status.
 * @param {LegResult[]} legs every result, the last one's the cell's
 * @param {CallSummary[]} calls
 * @param {number} started
 * @param {CliOptions} options
 * @param {Io} io
 */
function report(legs, calls, started, options, io) {
  const result = legs[legs.length - 1]
  /** @type {Report} */
  const data = {
    status: result.status,
    ...(result.status === 'completed' ? { value: result.value } : {}),
    ...(result.status === 'failed' ? { code: result.code, failurePhase: result.failurePhase, error: result.error } : {}),
    ...(result.status === 'waiting' ? { runId: result.runId, reason: result.reason } : {}),
    legs: legs.length,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    output: legs.flatMap((leg) => leg.output ?? []),
    calls,
    telemetry: result.telemetry,
  }
  io.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : readable(data))
  return result.status === 'completed' ? 0 : 1
}

/**
 * The tools of a --tools file as OpenClaw agent tools answering from its `responses`: plugin
 * tools (`sourceName` = the plugin id; core tools without one) and MCP tools (`<server>__<tool>`,
 * answering with an MCP result: a response with a `content` array is one, any other value
 * becomes its text and structuredContent).
 * @param {ToolsFile} local
 * @param {string | undefined} file
 */
function agentToolsFromFile(local, file) {
  const { findOpenClaw, loadGateway } = require('./openclaw-gateway.js')
  /** @type {Map<object, string | null>} */
  const plugins = new Map()
  /** @type {import('./openclaw-gateway.js').AgentTool[]} */
  const tools = []
  /** @type {{ tool: import('./openclaw-gateway.js').AgentTool, server: string, toolName: string }[]} */
  const mcpTools = []
  for (const [i, entry] of local.tools.entries()) {
    if (!entry || typeof entry.name !== 'string' || entry.name === '') throw new UsageError(`--tools ${file}: tools[${i}] needs a name`)
    const source = entry.source ?? 'openclaw'
    const owner = entry.sourceName ?? (source === 'mcp' ? entry.mcp?.serverName : 'core')
    const call = { id: `${source}:${owner}:${entry.name}`, name: entry.name }
    const parameters = entry.parameters ?? { type: 'object', properties: {} }
    if (source === 'mcp') {
      const server = entry.mcp?.serverName ?? entry.sourceName
      if (!server) throw new UsageError(`--tools ${file}: MCP tool "${entry.name}" needs a sourceName (its server)`)
      const toolName = entry.mcp?.toolName ?? entry.name
      const tool = {
        name: `${server}__${toolName}`,
        label: entry.label ?? toolName,
        description: entry.description ?? '',
        parameters,
        resultContentSource: 'network',
        execute: async () => {
          const value = await answer(local.responses, call, file)
          const raw =
            value && typeof value === 'object' && Array.isArray(value.content)
              ? value
              : { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) ?? 'null' }], ...(value && typeof value === 'object' && !Array.isArray(value) ? { structuredContent: value } : {}) }
          // Found: openclawGateway() checked it before the tools were made.
          const gateway = await loadGateway(/** @type {{ dir: string, version: string }} */ (findOpenClaw()))
          return gateway.projectMcpCallToolResult(raw, { mcpServer: server, mcpTool: toolName })
        },
      }
      mcpTools.push({ tool, server, toolName })
    } else if (source === 'openclaw') {
      const tool = {
        name: entry.name,
        label: entry.label ?? entry.name,
        description: entry.description ?? '',
        parameters,
        ...(entry.outputSchema !== undefined ? { outputSchema: entry.outputSchema } : {}),
        execute: async () => {
          const value = await answer(local.responses, call, file)
          return { content: [{ type: 'text', text: JSON.stringify(value) ?? 'null' }], details: value }
        },
      }
      plugins.set(tool, entry.sourceName && entry.sourceName !== 'core' ? entry.sourceName : null)
      tools.push(tool)
    } else {
      throw new UsageError(`--tools ${file}: "${entry.name}" has source "${source}"; --openclaw takes plugin ("openclaw") and "mcp" tools`)
    }
  }
  return { tools, mcpTools, pluginId: (/** @type {object} */ tool) => plugins.get(tool) ?? null }
}

/**
 * The gateway for --openclaw: the --tools file and --mcp servers behind its exec/wait.
 * @param {CliOptions} options
 * @param {object} config `tools.codeMode`
 * @param {string} who
 * @param {(record: import('./testing').OpenClawRecordedCall) => void} [onCall]
 */
async function openclawGateway(options, config, who, onCall) {
  const { requireOpenClaw, createGateway } = require('./openclaw-gateway.js')
  requireOpenClaw({ who })
  const local = options.tools ? loadTools(options.tools) : { tools: [], responses: {} }
  const { tools, mcpTools, pluginId } = agentToolsFromFile(local, options.tools)
  const mcpServers = options.mcp.length > 0 ? Object.fromEntries(options.mcp.map(mcpSpec).map(({ name, command, args }) => [name, { command, args }])) : undefined
  if (tools.length + mcpTools.length === 0 && !mcpServers) throw new UsageError('no tools: give --tools and/or --mcp')
  const executor = /** @type {import('./openclaw-gateway.js').Executor | undefined} */ (options.executor)
  return createGateway({ who, tools, mcpTools, mcpServers, pluginId, config, executor, onCall, runId: `cli-${process.pid}` })
}

/**
 * `code-mode run --openclaw <cell.js>`.
 * @param {string} file
 * @param {CliOptions} options
 * @param {Record<string, unknown>} config
 * @param {Io} io
 */
async function runOpenClaw(file, options, config, io) {
  const { followCell } = require('./openclaw-gateway.js')
  const code = readCell(file)
  /** @type {import('./testing').OpenClawRecordedCall[]} */
  const records = []
  const gateway = await openclawGateway(options, config, 'run --openclaw', (record) => records.push(record))
  try {
    for (const warning of configWarnings(config, { openclaw: true, executor: gateway.executor })) io.stderr.write(`code-mode: ${warning}\n`)
    const started = performance.now()
    const legs = await followCell(gateway, code, {
      maxLegs: options.maxLegs,
      callId: (leg) => (leg === 0 ? 'cli_exec' : `cli_wait_${leg}`),
    })
    // `durationMs` is a hidden property of each record (lib/openclaw-gateway.js).
    const calls = records.map((r) => ({
      toolId: r.name,
      ok: r.error === undefined,
      durationMs: /** @type {{ durationMs?: number }} */ (r).durationMs,
      ...(r.error !== undefined ? { error: r.error } : {}),
    }))
    return report(legs, calls, started, options, io)
  } finally {
    await gateway.cleanup()
  }
}

/**
 * `code-mode check --openclaw <cell.js>`.
 * @param {string} file
 * @param {CliOptions} options
 * @param {Record<string, unknown>} config
 * @param {Io} io
 */
async function checkOpenClaw(file, options, config, io) {
  const checker = require('./check.js')
  const code = readCell(file)
  const gateway = await openclawGateway(options, { ...config, maxOutputBytes: 10 << 20, timeoutMs: 60_000 }, 'check --openclaw')
  let declarations
  try {
    declarations = await checker.openclawDeclarations(gateway)
  } finally {
    await gateway.cleanup()
  }
  const ts = await checker.loadTypeScript()
  if (!ts) {
    io.stderr.write(`code-mode: ${checker.TYPESCRIPT_MISSING}`)
    return 2
  }
  const diagnostics = checker.checkCell(ts, code, { language: 'javascript', declarations, guest: 'openclaw' })
  return printCheck(file, 'javascript', ts, ['guest-openclaw.d.ts', ...Object.keys(declarations)], diagnostics, options, io)
}

/**
 * `code-mode check <cell>`: prints the cell's type errors; resolves to the exit status.
 * @param {string} file
 * @param {CliOptions} options
 * @param {Record<string, unknown>} config
 * @param {'javascript' | 'typescript'} language
 * @param {Io} io
 */
async function check(file, options, config, language, io) {
  /** @type {Awaited<ReturnType<typeof import('./mcp.js').connectMcpServer>>[]} */
  const servers = []
  try {
    const checker = require('./check.js')
    const ts = await checker.loadTypeScript()
    if (!ts) {
      io.stderr.write(`code-mode: ${checker.TYPESCRIPT_MISSING}`)
      return 2
    }
    const code = readCell(file)
    const local = options.tools ? loadTools(options.tools) : { tools: [], responses: {} }
    await startMcpServers(options.mcp, servers)
    for (const warning of configWarnings(config)) io.stderr.write(`code-mode: ${warning}\n`)
    const { files, shortcuts } = await checker.renderedDeclarations([...local.tools, ...servers.flatMap((s) => s.tools)], config)
    const declarations = { ...files, ...(shortcuts.length > 0 ? { 'tools.d.ts': checker.toolsDeclaration(shortcuts) } : {}) }
    const diagnostics = checker.checkCell(ts, code, { language, declarations })
    return printCheck(file, language, ts, ['guest.d.ts', ...Object.keys(declarations)], diagnostics, options, io)
  } finally {
    await Promise.all(servers.map((s) => s.close().catch(() => {})))
  }
}

/**
 * Prints a check's diagnostics; returns the exit status.
 * @param {string} file
 * @param {string} language
 * @param {import('./check.js').Checker} ts
 * @param {string[]} against the declaration files the cell was checked against
 * @param {import('./check.js').Diagnostic[]} diagnostics
 * @param {CliOptions} options
 * @param {Io} io
 */
function printCheck(file, language, ts, against, diagnostics, options, io) {
  const errors = diagnostics.filter((d) => d.category === 'error').length
  if (options.json) {
    const data = { file, language, typescript: ts.version, declarations: against, errors, diagnostics }
    io.stdout.write(`${JSON.stringify(data, null, 2)}\n`)
  } else {
    const checker = require('./check.js')
    io.stdout.write(checker.formatDiagnostics(file, diagnostics))
    io.stdout.write(errors === 0
      ? `${file}: no type errors (TypeScript ${ts.version}; ${against.join(', ')})\n`
      : `Found ${errors} error${errors === 1 ? '' : 's'} in ${file} (TypeScript ${ts.version}; ${against.join(', ')})\n`)
  }
  return errors === 0 ? 0 : 1
}

/**
 * The run report as text.
 * @param {Report} report
 */
function readable(report) {
  const lines = []
  const waits = report.legs - 1
  lines.push(`${report.status} in ${report.legs} leg${report.legs === 1 ? '' : 's'}${waits ? ` (${waits} wait${waits === 1 ? '' : 's'})` : ''}, ${report.durationMs} ms`)
  if (report.status === 'failed') {
    lines.push(`error [${report.code}] ${report.error}`)
    if (report.failurePhase) lines.push(`failure phase: ${report.failurePhase}`)
  }
  if (report.status === 'waiting') lines.push(`still waiting (${report.reason}) after --max-legs; runId ${report.runId}`)
  if (report.output.length > 0) {
    lines.push('', 'Output')
    for (const item of report.output) {
      lines.push(item.type === 'text' ? `  text  ${item.text}` : `  json  ${JSON.stringify(item.value)}`)
    }
  }
  if (report.status === 'completed') {
    lines.push('', 'Value', ...(JSON.stringify(report.value, null, 2) ?? 'undefined').split('\n').map((l) => `  ${l}`))
  }
  if (report.calls.length > 0) {
    lines.push('', 'Nested calls')
    report.calls.forEach((c, i) => lines.push(`  ${i + 1}. ${c.toolId}  ${c.ok ? 'ok' : `failed: ${c.error}`}  ${c.durationMs} ms`))
  }
  const t = report.telemetry
  if (t) {
    lines.push('', 'Telemetry', `  catalog ${t.catalogSize} (openclaw ${t.sources?.openclaw ?? 0}, mcp ${t.sources?.mcp ?? 0}, client ${t.sources?.client ?? 0}) · search ${t.searchCount} · describe ${t.describeCount} · call ${t.callCount}`)
  }
  return `${lines.join('\n')}\n`
}

module.exports = { main, splitCommand, mcpSpec, configWarnings, HELP }
