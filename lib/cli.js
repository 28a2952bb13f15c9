'use strict'
// `code-mode run <cell>`: runs one cell against a catalog from a JSON file and/or MCP servers,
// follows `waiting` with `wait`, and reports output, value, nested calls and telemetry.
// `code-mode check <cell>`: type-checks a cell against the same catalog's guest types (lib/check.js).

const { readFileSync } = require('node:fs')
const { basename, extname, resolve } = require('node:path')

const HELP = `Usage: code-mode run <cell.js|cell.ts> [options]
       code-mode check <cell.js|cell.ts> [--tools <file>] [--mcp <command>] [--language <lang>] [--json]

run     Runs one code-mode cell the way a gateway would: the tools are hidden behind exec/wait,
        the cell reaches them through tools.*, MCP.* and namespaces, and every "waiting" result
        is followed with wait until the cell completes or fails.
check   Type-checks one cell as the runtime runs it (the body of an async function: top-level
        await and return are fine) against the guest API (guest.d.ts) and the MCP declarations
        the runtime renders for the given tools. Needs the "typescript" package.

Options:
  --tools <file>      JSON file with the catalog and canned answers:
                        { "tools": [CatalogTool, ...],
                          "responses": { "<tool name or id>": <value> } }
                      A response may be { "$error": "message" } (the tool throws) or
                      { "$delayMs": 500, "$value": <value> } (a slow tool).
  --mcp <command>     Start an MCP server over stdio and add its tools; repeatable.
                      Write "name=command args" to choose the server name (MCP.<name>);
                      by default it is the package or file name without "server-".
                      Needs @modelcontextprotocol/sdk to be installed.
  --config <json>     tools.codeMode settings, e.g. '{"timeoutMs": 2000}'.
                      "enabled": true is implied.
  --language <lang>   javascript or typescript (default: from the file extension).
  --json              Print one JSON document instead of the readable report.
  --max-legs <n>      Follow at most n waiting results (default 100; run only).
  -h, --help          Show this help.

Exit status: 0 when the cell completes (run) or has no type errors (check), 1 when it fails
(the error code and message are printed) or has type errors (printed at the cell's own line
and column), 2 for a usage error or a missing "typescript" package (check).
`

class UsageError extends Error {}

/** The `--config` JSON object; anything else is a usage error naming the flag. */
function parseConfig(text) {
  if (text === undefined) return {}
  let config
  try {
    config = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--config: not valid JSON (${error.message}): ${text}`)
  }
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw new UsageError(`--config: expected a JSON object such as '{"timeoutMs": 2000}', got ${text}`)
  }
  return config
}

function parseArgs(argv) {
  const options = { mcp: [], json: false, maxLegs: 100 }
  const positional = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`)
      return argv[++i]
    }
    if (arg === '-h' || arg === '--help') options.help = true
    else if (arg === '--tools') options.tools = value()
    else if (arg === '--mcp') options.mcp.push(value())
    else if (arg === '--config') options.config = value()
    else if (arg === '--language') options.language = value()
    else if (arg === '--json') options.json = true
    else if (arg === '--max-legs') options.maxLegs = Number(value())
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`)
    else positional.push(arg)
  }
  return { options, positional }
}

/** Splits a command line into words, honouring single and double quotes. */
function splitCommand(command) {
  const words = []
  let word = ''
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

function mcpSpec(spec) {
  const named = /^([A-Za-z][\w-]*)=(.+)$/.exec(spec)
  const words = splitCommand(named ? named[2] : spec)
  if (words.length === 0) throw new UsageError('--mcp needs a command')
  const last = words.filter((w) => !w.startsWith('-')).pop() ?? words[0]
  const guessed = basename(last).replace(extname(last), '').replace(/^server-/, '').replace(/^mcp-server-/, '')
  return { name: named ? named[1] : guessed || 'mcp', command: words[0], args: words.slice(1) }
}

function loadTools(file) {
  let data
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`--tools ${file}: ${error.message}`)
  }
  const tools = Array.isArray(data) ? data : data.tools
  if (!Array.isArray(tools)) throw new UsageError(`--tools ${file}: expected { "tools": [...] }`)
  return { tools, responses: (data && data.responses) || {} }
}

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

/** Runs the CLI; resolves to the exit status. `io` = { stdout, stderr } writers. */
async function main(argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  let parsed
  try {
    parsed = parseArgs(argv)
  } catch (error) {
    io.stderr.write(`code-mode: ${error.message}\n\n${HELP}`)
    return 2
  }
  const { options, positional } = parsed
  if (options.help || positional.length === 0) {
    ;(options.help ? io.stdout : io.stderr).write(HELP)
    return options.help ? 0 : 2
  }
  const [command, file, ...rest] = positional
  if ((command !== 'run' && command !== 'check') || !file || rest.length > 0) {
    io.stderr.write(`code-mode: expected "run <cell>" or "check <cell>"\n\n${HELP}`)
    return 2
  }
  if (command === 'check') return check(file, options, io)
  const servers = []
  try {
    const code = readFileSync(resolve(file), 'utf8')
    const language = options.language ?? (/\.m?ts$/.test(file) ? 'typescript' : 'javascript')
    const config = { ...parseConfig(options.config), enabled: true }
    const local = options.tools ? loadTools(options.tools) : { tools: [], responses: {} }
    if (options.mcp.length > 0) {
      const { connectMcpServer } = require('./mcp.js')
      for (const spec of options.mcp) servers.push(await connectMcpServer(mcpSpec(spec)))
    }
    // Loaded here, not at the top, so that --help and usage errors work without the native addon.
    const { CodeModeRun } = require('../index.js')
    const { forwardMcpCall } = require('./mcp.js')
    const calls = []
    const started = performance.now()
    const run = CodeModeRun.create({
      config,
      runId: `cli-${process.pid}`,
      tools: [...local.tools, ...servers.flatMap((s) => s.tools)],
      executor: (call) =>
        call.source === 'mcp' ? forwardMcpCall(servers, call) : answer(local.responses, call, options.tools),
      onEvent: (event) => {
        if (event.type === 'tool_call_end') {
          calls.push({ toolId: event.toolId, ok: event.ok, durationMs: event.durationMs, ...(event.error ? { error: event.error } : {}) })
        }
      },
    })
    if (!run.active) throw new UsageError('no tools: give --tools and/or --mcp')
    const legs = []
    let result = await run.exec({ code, language }, { toolCallId: 'cli_exec' })
    legs.push(result)
    while (result.status === 'waiting' && legs.length <= options.maxLegs) {
      result = await run.wait({ runId: result.runId }, { toolCallId: `cli_wait_${legs.length}` })
      legs.push(result)
    }
    const report = {
      status: result.status,
      ...(result.status === 'completed' ? { value: result.value } : {}),
      ...(result.status === 'failed' ? { code: result.code, error: result.error } : {}),
      ...(result.status === 'waiting' ? { runId: result.runId, reason: result.reason } : {}),
      legs: legs.length,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      output: legs.flatMap((leg) => leg.output ?? []),
      calls,
      telemetry: result.telemetry,
    }
    io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : readable(report))
    return result.status === 'completed' ? 0 : 1
  } catch (error) {
    io.stderr.write(`code-mode: ${error.message}\n`)
    return error instanceof UsageError ? 2 : 1
  } finally {
    await Promise.all(servers.map((s) => s.close().catch(() => {})))
  }
}

/** `code-mode check <cell>`: prints the cell's type errors; resolves to the exit status. */
async function check(file, options, io) {
  const servers = []
  try {
    // Usage errors first: they need neither the addon nor typescript.
    const config = parseConfig(options.config)
    const checker = require('./check.js')
    const ts = checker.loadTypeScript()
    if (!ts) {
      io.stderr.write(`code-mode: ${checker.TYPESCRIPT_MISSING}`)
      return 2
    }
    const language = options.language ?? (/\.m?ts$/.test(file) ? 'typescript' : 'javascript')
    if (language !== 'typescript' && language !== 'javascript') throw new UsageError(`--language ${language}: expected javascript or typescript`)
    const code = readFileSync(resolve(file), 'utf8')
    const local = options.tools ? loadTools(options.tools) : { tools: [], responses: {} }
    if (options.mcp.length > 0) {
      const { connectMcpServer } = require('./mcp.js')
      for (const spec of options.mcp) servers.push(await connectMcpServer(mcpSpec(spec)))
    }
    const declarations = await checker.renderedDeclarations([...local.tools, ...servers.flatMap((s) => s.tools)], config)
    const diagnostics = checker.checkCell(ts, code, { language, declarations })
    const errors = diagnostics.filter((d) => d.category === 'error').length
    if (options.json) {
      const report = { file, language, typescript: ts.version, declarations: ['guest.d.ts', ...Object.keys(declarations)], errors, diagnostics }
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
    } else {
      io.stdout.write(checker.formatDiagnostics(file, diagnostics))
      const against = ['guest.d.ts', ...Object.keys(declarations)].join(', ')
      io.stdout.write(errors === 0
        ? `${file}: no type errors (TypeScript ${ts.version}; ${against})\n`
        : `Found ${errors} error${errors === 1 ? '' : 's'} in ${file} (TypeScript ${ts.version}; ${against})\n`)
    }
    return errors === 0 ? 0 : 1
  } catch (error) {
    io.stderr.write(`code-mode: ${error.message}\n`)
    return error instanceof UsageError ? 2 : 1
  } finally {
    await Promise.all(servers.map((s) => s.close().catch(() => {})))
  }
}

function readable(report) {
  const lines = []
  const waits = report.legs - 1
  lines.push(`${report.status} in ${report.legs} leg${report.legs === 1 ? '' : 's'}${waits ? ` (${waits} wait${waits === 1 ? '' : 's'})` : ''}, ${report.durationMs} ms`)
  if (report.status === 'failed') lines.push(`error [${report.code}] ${report.error}`)
  if (report.status === 'waiting') lines.push(`still waiting (${report.reason}) after --max-legs; runId ${report.runId}`)
  if (report.output.length > 0) {
    lines.push('', 'Output')
    for (const item of report.output) {
      lines.push(item.type === 'text' ? `  text  ${item.text}` : `  json  ${JSON.stringify(item.value)}`)
    }
  }
  if (report.status === 'completed') {
    lines.push('', 'Value', ...JSON.stringify(report.value, null, 2).split('\n').map((l) => `  ${l}`))
  }
  if (report.calls.length > 0) {
    lines.push('', 'Nested calls')
    report.calls.forEach((c, i) => lines.push(`  ${i + 1}. ${c.toolId}  ${c.ok ? 'ok' : `failed: ${c.error}`}  ${c.durationMs} ms`))
  }
  const t = report.telemetry
  lines.push('', 'Telemetry', `  catalog ${t.catalogSize} (openclaw ${t.sources.openclaw}, mcp ${t.sources.mcp}, client ${t.sources.client}) · search ${t.searchCount} · describe ${t.describeCount} · call ${t.callCount}`)
  return `${lines.join('\n')}\n`
}

module.exports = { main, splitCommand, mcpSpec, HELP }
