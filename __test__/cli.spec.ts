// `code-mode run`: the command-line runner, end to end.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { userEnv } from './support/binaries'

const require = createRequire(import.meta.url)
const bin = resolve(__dirname, '../bin/code-mode.js')
const examples = resolve(__dirname, '../examples/cli')
const memoryServer = require.resolve('@modelcontextprotocol/server-memory/dist/index.js')
const { MAX_CODE_BYTES } = require('../lib/generated/protocol.js') as { MAX_CODE_BYTES: number }

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const dirs: string[] = []
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

function cell(code: string, name = 'cell.js') {
  const dir = mkdtempSync(join(tmpdir(), 'code-mode-cli-'))
  dirs.push(dir)
  writeFileSync(join(dir, name), code)
  return join(dir, name)
}

describe('code-mode CLI', () => {
  it('documents every flag in --help', () => {
    const { status, stdout } = cli('--help')
    expect(status).toBe(0)
    for (const flag of ['--tools', '--mcp', '--config', '--language', '--json', '--max-legs', '--openclaw', '--executor', '--version', '--help']) expect(stdout).toContain(flag)
  })

  it('runs a TypeScript cell against tools.json, following waits', () => {
    const { status, stdout } = cli('run', join(examples, 'cell.ts'), '--tools', join(examples, 'tools.json'), '--config', '{"timeoutMs": 150}')
    expect(status).toBe(0)
    expect(stdout).toMatch(/^completed in [2-9] legs/)
    expect(stdout).toContain('text  2 open issues')
    expect(stdout).toContain('"deploy": "healthy"')
    expect(stdout).toContain('3. openclaw:deploy:deploy_status  ok')
    expect(stdout).toContain('catalog 3 (openclaw 3, mcp 0, client 0)')
  })

  it('prints machine output with --json', () => {
    const { status, stdout } = cli('run', join(examples, 'cell.ts'), '--tools', join(examples, 'tools.json'), '--json')
    expect(status).toBe(0)
    const report = JSON.parse(stdout)
    expect(report).toMatchObject({ status: 'completed', value: { lines: 3, first: 'Resume after approval', deploy: 'healthy' }, legs: 1 })
    expect(report.calls.map((c: { toolId: string }) => c.toolId)).toEqual(['openclaw:core:read_file', 'openclaw:github:list_issues', 'openclaw:deploy:deploy_status'])
  })

  it('exits 1 with the code and message when the cell fails', () => {
    const failing = cell('const t = await tools.read_file({ path: "x" });\nt.missing.field')
    const { status, stdout } = cli('run', failing, '--tools', join(examples, 'tools.json'))
    expect(status).toBe(1)
    expect(stdout).toContain("error [internal_error] TypeError: cannot read property 'field' of undefined (line 2, column 1)")
    const erroring = cell('import fs from "fs"')
    expect(cli('run', erroring, '--tools', join(examples, 'tools.json'), '--json').stdout).toContain('"code": "invalid_input"')
  })

  it('starts MCP servers with --mcp', () => {
    const code = cell('await MCP.memory.createEntities({ entities: [{ name: "cli", entityType: "test", observations: [] }] });\n(await API.list("mcp")).map((f) => f.path)')
    const { status, stdout } = cli('run', code, '--mcp', `memory=${process.execPath} ${memoryServer}`, '--json')
    expect(status).toBe(0)
    expect(JSON.parse(stdout).value).toEqual(['mcp/index.d.ts', 'mcp/memory.d.ts'])
  })

  it('shows --help without the native addon, and names the missing binding when a cell needs it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-mode-cli-nobinary-'))
    dirs.push(dir)
    for (const f of ['bin', 'lib', 'index.js', 'binding.js', 'package.json']) cpSync(resolve(__dirname, '..', f), join(dir, f), { recursive: true })
    // As a user's process: not told where the suites' testing build is.
    const run = (...args: string[]) => spawnSync(process.execPath, [join(dir, 'bin/code-mode.js'), ...args], { encoding: 'utf8', env: userEnv(), timeout: 30_000 })
    expect(run('--help')).toMatchObject({ status: 0, stderr: '' })
    const failed = run('run', cell('1'), '--tools', join(examples, 'tools.json'))
    expect(failed.status).toBe(1)
    expect(failed.stderr).toMatch(/^code-mode: Cannot find native binding/)
  })

  it('reports usage errors with status 2', () => {
    expect(cli().status).toBe(2)
    expect(cli('run').status).toBe(2)
    expect(cli('run', 'x.js', '--bogus').stderr).toContain('unknown option --bogus')
    const { status, stderr } = cli('run', cell('1'))
    expect(status).toBe(2)
    expect(stderr).toContain('no tools: give --tools and/or --mcp')
  })

  it('names --config and exits 2 when its JSON is bad, for run and check', () => {
    for (const command of ['run', 'check']) {
      const bad = cli(command, cell('1'), '--tools', join(examples, 'tools.json'), '--config', '{timeoutMs: 5}')
      expect(bad.status).toBe(2)
      expect(bad.stderr).toMatch(/^code-mode: --config: not valid JSON/)
    }
    const notObject = cli('run', cell('1'), '--tools', join(examples, 'tools.json'), '--config', '[1]')
    expect(notObject.status).toBe(2)
    expect(notObject.stderr).toContain('--config: expected a JSON object')
  })

  it('prints the version with --version and -v', () => {
    const { version } = JSON.parse(readFileSync(resolve(__dirname, '../package.json'), 'utf8'))
    for (const flag of ['--version', '-v']) expect(cli(flag)).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' })
  })

  it('prints the failure phase, and has it in --json', () => {
    const failing = cell('const t = await tools.read_file({ path: "x" });\nt.missing.field')
    const readable = cli('run', failing, '--tools', join(examples, 'tools.json'))
    expect(readable.stdout).toContain("error [internal_error] TypeError: cannot read property 'field' of undefined")
    expect(readable.stdout).toContain('failure phase: guest')
    const json = JSON.parse(cli('run', failing, '--tools', join(examples, 'tools.json'), '--json').stdout)
    expect(json).toMatchObject({ status: 'failed', code: 'internal_error', failurePhase: 'guest' })
    const invalid = JSON.parse(cli('run', cell('import fs from "fs"'), '--tools', join(examples, 'tools.json'), '--json').stdout)
    expect(invalid).toMatchObject({ code: 'invalid_input', failurePhase: 'input' })
  })

  it('names unknown and adjusted --config keys on stderr with what it used, for run and check', () => {
    const config = JSON.stringify({ timeoutMS: 5000, timeoutMs: 5, enabled: 'yes', maxPendingToolCalls: 1.5, memoryLimitBytes: 1 << 30 })
    const expected = [
      'code-mode: --config: unknown key "timeoutMS" ignored (did you mean "timeoutMs"?)',
      'code-mode: --config: "timeoutMs": 5 is out of range; used 100',
      'code-mode: --config: "enabled": "yes" ignored; code-mode always runs with "enabled": true',
      'code-mode: --config: "maxPendingToolCalls": 1.5 is not a positive integer; used 16',
      '',
    ].join('\n')
    const ran = cli('run', cell('return (await tools.read_file({ path: "x" })).path'), '--tools', join(examples, 'tools.json'), '--config', config, '--json')
    expect(ran.stderr).toBe(expected)
    expect(JSON.parse(ran.stdout)).toMatchObject({ status: 'completed', value: 'README.md' })
    expect(ran.status).toBe(0)
    const checked = cli('check', cell('return 1'), '--tools', join(examples, 'tools.json'), '--config', config)
    expect(checked.stderr).toBe(expected)
    expect(checked.status).toBe(0)
    // Settings taken as given say nothing.
    expect(cli('run', cell('return 1'), '--tools', join(examples, 'tools.json'), '--config', '{"timeoutMs": 2000, "enabled": true}').stderr).toBe('')
  })

  it('--max-legs n takes at most n results', () => {
    const slow = cell('return (await tools.deploy_status()).status')
    const one = cli('run', slow, '--tools', join(examples, 'tools.json'), '--config', '{"timeoutMs": 100}', '--max-legs', '1')
    expect(one.status).toBe(1)
    expect(one.stdout).toMatch(/^waiting in 1 leg, /)
    expect(one.stdout).toContain('still waiting (pending_tools) after --max-legs')
    const two = JSON.parse(cli('run', slow, '--tools', join(examples, 'tools.json'), '--config', '{"timeoutMs": 100}', '--max-legs', '2', '--json').stdout)
    expect(two.legs).toBe(2)
    for (const bad of ['0', '-1', '1.5', 'many']) {
      const r = cli('run', slow, '--tools', join(examples, 'tools.json'), '--max-legs', bad)
      expect(r.status, bad).toBe(2)
      expect(r.stderr).toContain(`--max-legs ${bad}: expected a whole number of legs, 1 or more`)
    }
  })

  it('answers MCP-source tools of tools.json from its responses', () => {
    const tools = cell(
      JSON.stringify({
        tools: [{ name: 'create_issue', source: 'mcp', sourceName: 'github', description: 'Open an issue', parameters: { type: 'object', properties: { title: { type: 'string' } } } }],
        responses: { create_issue: { content: [{ type: 'text', text: 'opened #7' }] } },
      }),
      'mcp-tools.json',
    )
    const r = cli('run', cell('return (await MCP.github.createIssue({ title: "x" })).content[0].text'), '--tools', tools, '--json')
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', value: 'opened #7' })
  })

  it('says npm run build, not reinstall, in a source checkout without the built addon', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-mode-cli-checkout-'))
    dirs.push(dir)
    for (const f of ['bin', 'lib', 'index.js', 'binding.js', 'package.json', 'guest.d.ts', 'Cargo.toml', 'src/lib.rs']) cpSync(resolve(__dirname, '..', f), join(dir, f), { recursive: true })
    for (const args of [['run', cell('1'), '--tools', join(examples, 'tools.json')], ['check', cell('1'), '--tools', join(examples, 'tools.json')]]) {
      const r = spawnSync(process.execPath, [join(dir, 'bin/code-mode.js'), ...args], { encoding: 'utf8', env: userEnv(), timeout: 30_000 })
      expect(r.status).toBe(1)
      expect(r.stderr).toBe(`code-mode: the native addon is not built in this source checkout (${dir}): run \`npm run build\` there (or \`npm run build:debug\` for a debug build)\n`)
    }
  })

  it('refuses a cell file over the source cap, reading no more than one byte past it', () => {
    const tools = join(examples, 'tools.json')
    // Exactly the cap (spaces after the code) still runs.
    const atCap = cell(`return 1${' '.repeat(MAX_CODE_BYTES - 'return 1'.length)}`)
    expect(JSON.parse(cli('run', atCap, '--tools', tools, '--json').stdout)).toMatchObject({ status: 'completed', value: 1 })
    const over = cell(`return 1${' '.repeat(MAX_CODE_BYTES)}`)
    const refused = `code-mode: ${over}: the cell is over ${MAX_CODE_BYTES} bytes; code mode accepts at most ${MAX_CODE_BYTES} bytes of source\n`
    for (const command of ['run', 'check']) expect(cli(command, over, '--tools', tools)).toMatchObject({ status: 1, stdout: '', stderr: refused })
    // An endless file: before the cap, the CLI read it until memory ran out.
    if (process.platform === 'linux') {
      expect(cli('run', '/dev/zero', '--tools', tools)).toMatchObject({
        status: 1,
        stderr: `code-mode: /dev/zero: the cell is over ${MAX_CODE_BYTES} bytes; code mode accepts at most ${MAX_CODE_BYTES} bytes of source\n`,
      })
      // The tools file is bounded too (64 MiB).
      const capped = cli('run', atCap, '--tools', '/dev/zero')
      expect(capped).toMatchObject({ status: 2, stdout: '' })
      expect(capped.stderr).toMatch(/^code-mode: --tools \/dev\/zero: the file is over 67108864 bytes; the CLI reads at most 67108864 bytes of tools\n/)
    }
  })

  it('refuses a --tools response whose $error is not a string or whose $delayMs is no timer delay', () => {
    // 1e400 is Infinity to JSON.parse; setTimeout fires at once for Infinity and for 3e9 (over 2 ** 31 - 1).
    const cases: [string, string][] = [
      ['{ "$delayMs": 1e400, "$value": 1 }', '"$delayMs" must be a number of milliseconds from 0 to 2147483647, not Infinity'],
      ['{ "$delayMs": 3e9, "$value": 1 }', '"$delayMs" must be a number of milliseconds from 0 to 2147483647, not 3000000000'],
      ['{ "$delayMs": -1 }', '"$delayMs" must be a number of milliseconds from 0 to 2147483647, not -1'],
      ['{ "$delayMs": "500" }', '"$delayMs" must be a number of milliseconds from 0 to 2147483647, not "500"'],
      ['{ "$error": { "x": 1 } }', '"$error" must be a string (the message the tool throws), not {"x":1}'],
    ]
    for (const [response, problem] of cases) {
      const tools = cell(`{ "tools": [{ "name": "slow" }], "responses": { "slow": ${response} } }`, 'tools.json')
      const r = cli('run', cell('return await tools.slow()'), '--tools', tools)
      expect(r, response).toMatchObject({ status: 2, stdout: '', stderr: `code-mode: --tools ${tools}: responses["slow"]: ${problem}\n` })
    }
    const notObject = cell('{ "tools": [{ "name": "slow" }], "responses": [1] }', 'tools.json')
    expect(cli('run', cell('1'), '--tools', notObject).stderr).toContain('"responses" must be an object')
  })

  it("shows an MCP server's stderr when it fails to start", () => {
    const server = cell('process.stderr.write("server says: missing API_TOKEN\\n"); process.exit(3)', 'server.js')
    const { status, stderr } = cli('run', cell('1'), '--mcp', `broken=${process.execPath} ${server}`)
    expect(status).toBe(1)
    expect(stderr).toContain('MCP server "broken"')
    expect(stderr).toContain('server says: missing API_TOKEN')
  })
})
