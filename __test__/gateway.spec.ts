// What a gateway expects of a run (issue 18): calls past maxPendingToolCalls queue, failed
// results say where they failed, nested-call events carry bounded inputs and results, debug
// lines on stderr, and a run that says why (inactive, hidden namespaces, unknown tools, a
// throwing listener).
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  CodeModeRun,
  clearCodeModeNamespacesForTest,
  createCodeModeNamespaceTool,
  registerCodeModeNamespaceForPlugin,
  type CodeModeErrorCode,
  type CodeModeEvent,
  type CodeModeFailedResult,
  type CodeModeFailurePhase,
  type NestedToolCall,
} from '../index.js'
import { TOOLS, deferred, expectStatus, makeRun, sleep } from './helpers.js'
import { captureWarnings } from './support/warnings.js'

const root = resolve(__dirname, '..')

/** An executor that settles each call a little later and records the most calls at once. */
function concurrentExecutor(delayMs = 2) {
  const seen = { now: 0, most: 0, inputs: [] as unknown[] }
  const executor = async (call: NestedToolCall) => {
    seen.inputs.push(call.input)
    seen.now++
    seen.most = Math.max(seen.most, seen.now)
    await sleep(delayMs)
    seen.now--
    return (call.input as { i: number }).i
  }
  return { seen, executor }
}

describe('calls past maxPendingToolCalls queue', () => {
  it('Promise.all over 17 calls completes with the default cap, at most 16 in flight', async () => {
    // Calls are held until the cap is reached, so a slow machine cannot settle the first ones
    // before the rest have started.
    let open!: () => void
    const full = new Promise<void>((resolve) => (open = resolve))
    const seen = { now: 0, most: 0 }
    const executor = async (call: NestedToolCall) => {
      seen.now++
      seen.most = Math.max(seen.most, seen.now)
      if (seen.now >= 16) open()
      await Promise.race([full, sleep(5000)])
      seen.now--
      return (call.input as { i: number }).i
    }
    const { run } = makeRun({ executor })
    const result = await run.exec({ code: 'await Promise.all(Array.from({ length: 17 }, (_, i) => tools.slow({ i })))' })
    expect(expectStatus(result, 'completed').value).toEqual(Array.from({ length: 17 }, (_, i) => i))
    expect(seen.most).toBe(16)
  })

  it('the cap plus the queue (16 + 128 = 144) run in start order; one more is a catchable error', async () => {
    const { seen, executor } = concurrentExecutor(1)
    const { run } = makeRun({ executor, config: { enabled: true, timeoutMs: 10_000 } })
    const all = await run.exec({ code: 'await Promise.all(Array.from({ length: 144 }, (_, i) => tools.slow({ i })))' })
    expect(expectStatus(all, 'completed').value).toEqual(Array.from({ length: 144 }, (_, i) => i))
    expect(seen.inputs).toEqual(Array.from({ length: 144 }, (_, i) => ({ i })))
    expect(seen.most).toBe(16)

    const past = await run.exec({
      code: `const started = Array.from({ length: 144 }, (_, i) => tools.slow({ i }));
let refused;
try { await tools.slow({ i: 144 }) } catch (e) { refused = e.message }
return [refused, (await Promise.all(started)).length]`,
    })
    expect(expectStatus(past, 'completed').value).toEqual([
      'Too many pending tool calls: 16 are running (maxPendingToolCalls) and 128 more are queued. Await some before starting more.',
      144,
    ])
  })

  it('an abort drops the queued calls: the executor never sees them', async () => {
    const hanging = deferred()
    const calls: NestedToolCall[] = []
    const { run } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 2 },
      executor: (call) => {
        calls.push(call)
        return hanging.promise
      },
    })
    const controller = new AbortController()
    const leg = run.exec({ code: 'await Promise.all(Array.from({ length: 10 }, (_, i) => tools.slow({ i })))' }, { signal: controller.signal })
    while (calls.length < 2) await sleep(5)
    controller.abort()
    expect(expectStatus(await leg, 'failed')).toMatchObject({ code: 'aborted', failurePhase: 'host' })
    hanging.resolve(1)
    await sleep(50)
    expect(calls).toHaveLength(2)
    expect(calls.every((call) => call.signal.aborted)).toBe(true)
  })

  it('expiry drops the queued calls of a parked cell: the executor never sees them', async () => {
    const calls: NestedToolCall[] = []
    const { run, events } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 1, timeoutMs: 100, snapshotTtlSeconds: 1 },
      executor: (call) => {
        calls.push(call)
        return new Promise(() => {})
      },
    })
    const waiting = expectStatus(await run.exec({ code: 'await Promise.all([0, 1, 2].map((i) => tools.slow({ i })))' }), 'waiting')
    expect(waiting.pendingToolCalls).toHaveLength(3)
    while (!events.some((e) => e.type === 'cell_expired')) await sleep(50)
    await sleep(50)
    expect(calls).toHaveLength(1)
    expect(calls[0].signal.aborted).toBe(true)
  })

  it('queued calls of a parked cell wait for its next leg: a parked cell starts nothing', async () => {
    const first = deferred()
    const calls: NestedToolCall[] = []
    const { run } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 1, timeoutMs: 100 },
      executor: (call) => {
        calls.push(call)
        return calls.length === 1 ? first.promise : (call.input as { i: number }).i
      },
    })
    const waiting = expectStatus(await run.exec({ code: 'await Promise.all([0, 1, 2].map((i) => tools.slow({ i })))' }), 'waiting')
    expect(calls).toHaveLength(1)
    first.resolve(0)
    await sleep(50)
    // The slot freed while the cell was parked: nothing more starts until it runs again (what a
    // parked cell holds must not grow while nobody waits on it; SECURITY.md, maxSnapshotBytes).
    expect(calls.map((c) => c.input)).toEqual([{ i: 0 }])
    expect(expectStatus(await run.wait({ runId: waiting.runId }), 'completed').value).toEqual([0, 1, 2])
    expect(calls.map((c) => c.input)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }])
  })

  it('queued calls of a waiting cell start as it resumes, and its pending list names them', async () => {
    const first = deferred()
    const calls: NestedToolCall[] = []
    const { run } = makeRun({
      config: { enabled: true, maxPendingToolCalls: 1, timeoutMs: 100 },
      executor: (call) => {
        calls.push(call)
        return calls.length === 1 ? first.promise : (call.input as { i: number }).i
      },
    })
    const waiting = expectStatus(await run.exec({ code: 'await Promise.all([0, 1, 2].map((i) => tools.slow({ i })))' }), 'waiting')
    expect(waiting.pendingToolCalls).toHaveLength(3)
    expect(calls).toHaveLength(1)
    first.resolve(0)
    const done = expectStatus(await run.wait({ runId: waiting.runId }), 'completed')
    expect(done.value).toEqual([0, 1, 2])
    expect(calls.map((c) => c.input)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }])
  })
})

describe('failurePhase', () => {
  const phase = async (input: unknown, config: unknown = { enabled: true, timeoutMs: 200 }) => {
    const { run } = makeRun({ config })
    return expectStatus(await run.exec(input as { code: string }), 'failed').failurePhase
  }

  it('tells the input, the guest program, and the host apart', async () => {
    expect(await phase({ cod: '1' })).toBe('input')
    expect(await phase({ code: 'let = ;' })).toBe('input')
    expect(await phase({ code: 'import fs from "fs"' })).toBe('input')
    expect(await phase({ code: 'throw new Error("model bug")' })).toBe('guest')
    expect(await phase({ code: 'for (;;) {}' })).toBe('guest')
    expect(await phase({ code: 'await new Promise(() => {})' })).toBe('guest')
    expect(await phase({ code: '1' }, { enabled: true, runtime: 'v8' })).toBe('host')
    const { run } = makeRun()
    expect(expectStatus(await run.wait({ runId: 'cm_nope' }), 'failed').failurePhase).toBe('input')
    run.abort()
    expect(expectStatus(await run.exec({ code: '1' }), 'failed').failurePhase).toBe('host')
  })

  it('is typed: the code and the phase are not optional', () => {
    const read = (failed: CodeModeFailedResult): [CodeModeErrorCode, CodeModeFailurePhase] => [failed.code, failed.failurePhase]
    expect(typeof read).toBe('function')
  })
})

describe('nested-call events', () => {
  it('carry the input and the result or error', async () => {
    const { run, events } = makeRun({
      executor: (call) => {
        if (call.name === 'message') throw new Error('no channel')
        return { echoed: call.input }
      },
    })
    await run.exec({ code: 'await tools.read_file({ path: "a.txt" }); try { await tools.message({ text: "hi" }) } catch {}' })
    const starts = events.filter((e) => e.type === 'tool_call_start')
    const ends = events.filter((e) => e.type === 'tool_call_end')
    expect(starts.map((e) => e.input)).toEqual([{ path: 'a.txt' }, { text: 'hi' }])
    expect(ends[0]).toMatchObject({ ok: true, result: { echoed: { path: 'a.txt' } } })
    expect(ends[0]).not.toHaveProperty('resultTruncated')
    expect(ends[1]).toMatchObject({ ok: false, error: 'no channel' })
    expect(ends[1]).not.toHaveProperty('result')
  })

  it('bound large payloads with a truncation marker', async () => {
    const { run, events } = makeRun({
      executor: (call) => (call.name === 'message' ? Promise.reject(new Error('e'.repeat(20_000))) : 'r'.repeat(20_000)),
    })
    await run.exec({ code: 'await tools.read_file({ path: "p".repeat(20000) }); try { await tools.message({}) } catch {}' })
    const start = events.find((e) => e.type === 'tool_call_start')!
    const [ok, failed] = events.filter((e) => e.type === 'tool_call_end')
    if (start.type !== 'tool_call_start' || ok.type !== 'tool_call_end' || failed.type !== 'tool_call_end') throw new Error('event order')
    expect(start.inputTruncated).toBe(true)
    expect(start.input).toMatch(/^\{"path":"p+…\[truncated 11819 characters\]$/)
    expect(ok.resultTruncated).toBe(true)
    expect((ok.result as string).length).toBeLessThan(8300)
    expect(ok.result).toMatch(/…\[truncated 11810 characters\]$/)
    expect(failed.error).toMatch(/^e+…\[truncated 11808 characters\]$/)
  })
})

describe('OPENCLAW_DEBUG_CODE_MODE', () => {
  const script = `
const { CodeModeRun } = require(${JSON.stringify(root)})
const run = CodeModeRun.create({
  config: { enabled: true }, runId: 'debug-run', tools: [{ name: 'secret_tool' }],
  executor: (call) => ({ answer: 'TOP-SECRET-RESULT' }),
})
run.exec({ code: 'await tools.secret_tool({ password: "TOP-SECRET-INPUT" })' }, { toolCallId: 'exec_1' }).then((r) => console.log(r.status))
`
  const runWith = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, OPENCLAW_DEBUG_CODE_MODE: '', ...env }, timeout: 30_000 })

  it('writes one line per leg and per nested call, with sizes but no payloads', () => {
    const { stdout, stderr } = runWith({ OPENCLAW_DEBUG_CODE_MODE: '1' })
    expect(stdout.trim()).toBe('completed')
    const lines = stderr.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^\[code-mode\] call toolCallId=cm_\w+ parentToolCallId=exec_1 runId=debug-run toolId=openclaw:core:secret_tool status=ok ms=[\d.]+ inputBytes=31 resultBytes=30$/)
    expect(lines[1]).toMatch(/^\[code-mode\] leg kind=exec leg=1 runId=debug-run toolCallId=exec_1 status=completed ms=[\d.]+ inputBytes=\d+ resultBytes=\d+$/)
    expect(stderr).not.toContain('TOP-SECRET')
  })

  it('writes nothing without the variable', () => {
    const { stdout, stderr } = runWith({})
    expect(stdout.trim()).toBe('completed')
    expect(stderr).toBe('')
  })
})

describe('a run says why', () => {
  afterEach(() => clearCodeModeNamespacesForTest())

  it('inactiveReason', () => {
    const create = (options: Partial<Parameters<typeof CodeModeRun.create>[0]>) =>
      CodeModeRun.create({ runId: 'r', tools: TOOLS, executor: () => null, config: { enabled: true }, ...options })
    expect(create({}).inactiveReason).toBeUndefined()
    expect(create({ config: {} }).inactiveReason).toBe('disabled')
    expect(create({ rawModelCall: true }).inactiveReason).toBe('raw_model_call')
    expect(create({ disableTools: true }).inactiveReason).toBe('tools_disabled')
    expect(create({ tools: [] }).inactiveReason).toBe('no_tools')
  })

  it('a namespace_hidden event for every hidden namespace, tools without sourceName included', () => {
    const scope = () => ({ list: createCodeModeNamespaceTool('list_issues') })
    registerCodeModeNamespaceForPlugin('github', { id: 'gh', globalName: 'gh', requiredToolNames: ['list_issues'], description: 'GitHub', createScope: scope })
    registerCodeModeNamespaceForPlugin('jira', { id: 'jira', globalName: 'jira', requiredToolNames: ['jira_search'], description: 'Jira', createScope: scope })
    registerCodeModeNamespaceForPlugin('broken', {
      id: 'broken',
      globalName: 'broken',
      description: 'Broken',
      requiredToolNames: ['broken_tool'],
      createScope: () => {
        throw new Error('no token')
      },
    })
    const events: CodeModeEvent[] = []
    CodeModeRun.create({
      runId: 'r',
      config: { enabled: true },
      // list_issues without sourceName counts as core's, not github's.
      tools: [{ name: 'list_issues' }, { name: 'broken_tool', sourceName: 'broken' }],
      executor: () => null,
      onEvent: (event) => events.push(event),
    })
    const hidden = events.filter((e) => e.type === 'namespace_hidden')
    expect(hidden.map((e) => e.namespaceId).sort()).toEqual(['broken', 'gh', 'jira'])
    const reason = (id: string) => hidden.find((e) => e.namespaceId === id)?.reason
    expect(reason('gh')).toBe(
      'required tool "list_issues" is in this run with sourceName "core", not "github": a namespace\'s tools must carry its plugin id as sourceName',
    )
    expect(reason('jira')).toBe('required tool "jira_search" is not in this run')
    expect(reason('broken')).toBe('createScope failed: no token')
  })

  it('tools.<unknown>() points to tools.search; probing names is unaffected', async () => {
    const { run } = makeRun()
    const failed = expectStatus(await run.exec({ code: 'await tools.nope({})' }), 'failed')
    expect(failed.error).toBe(
      'TypeError: tools.nope is not a function: there is no such tool in this run. Find tools with tools.search(query) (or ALL_TOOLS), then call one by its name or with tools.call(id, input). (line 1, column 12)',
    )
    expect(failed.failurePhase).toBe('guest')
    const probe = await run.exec({ code: '["nope" in tools, typeof tools.nope, typeof tools.read_file, JSON.stringify(Object.keys(tools).slice(0, 2))]' })
    expect(expectStatus(probe, 'completed').value).toEqual([false, 'undefined', 'function', '["search","describe"]'])
    // Another "not a function" after a real tool was read is left as it is.
    const other = expectStatus(await run.exec({ code: 'typeof tools.nope; await tools.read_file({}); (0)()' }), 'failed')
    expect(other.error).toBe('TypeError: not a function (line 1, column 52)')
  })

  it('an onEvent that throws is reported once as a warning and counted, and the run carries on', async () => {
    const { value: run, warnings } = await captureWarnings(async () => {
      const run = CodeModeRun.create({
        runId: 'r',
        config: { enabled: true },
        tools: TOOLS,
        executor: () => 1,
        onEvent: () => {
          throw new Error('listener bug')
        },
      })
      expect(expectStatus(await run.exec({ code: 'await tools.message({}) + await tools.message({})' }), 'completed').value).toBe(2)
      await sleep(10)
      return run
    })
    expect(run.eventListenerErrors).toBe(4)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ code: 'OPENCLAW_CODE_MODE_ON_EVENT' })
    expect(warnings[0].message).toContain('listener bug')
  })

  it('registration errors are TypeErrors', () => {
    const registration = { id: 'dup', globalName: 'dup', description: 'Dup', requiredToolNames: ['x'], createScope: () => ({}) }
    registerCodeModeNamespaceForPlugin('p', registration)
    expect(() => registerCodeModeNamespaceForPlugin('p', registration)).toThrow(TypeError)
    expect(() => registerCodeModeNamespaceForPlugin('p', { ...registration, id: 'other' })).toThrow(/globalName "dup" is already used/)
  })
})

describe('types', () => {
  it('exec and wait inputs are typed: a typo is a type error', () => {
    const typed = (run: CodeModeRun) => {
      // @ts-expect-error `cod` is not an exec input key
      void run.exec({ cod: '1' })
      // @ts-expect-error `runid` is not a wait input key
      void run.wait({ runid: 'cm_1' })
      void run.exec({ code: '1', language: 'typescript' })
      void run.wait({ runId: 'cm_1' })
    }
    expect(typeof typed).toBe('function')
  })
})
