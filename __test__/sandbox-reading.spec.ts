// Who reads a sandbox process's reports (src/sandbox/reading.rs): Node's event loop on Unix, a
// thread on Windows and wherever the loop cannot. A busy or ended loop must not stall, lose or
// kill a process; the thread path works as the loop path does.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { CodeModeRun, configureCodeModeRuntime, type NestedToolCall } from '../index.js'
import { __testProbe, __testReadReportsOnThreads, __testSandboxPids, __testSandboxPolicy, __testSandboxReaders, testingBuild } from './support/native-testing.js'
import { deferred, expectStatus } from './helpers.js'

const unix = process.platform !== 'win32'

configureCodeModeRuntime({ sandboxProcesses: 1, workerThreads: 4 })

let runs = 0
function session(executor?: (call: NestedToolCall) => unknown) {
  const id = `reading-${++runs}`
  return CodeModeRun.create({
    config: { enabled: true, timeoutMs: 10_000 },
    runId: id,
    sessionId: id,
    tools: [{ name: 'echo' }, { name: 'hold' }],
    executor: executor ?? ((call) => call.input),
  })
}

/** Keeps this thread (and so its event loop) busy for `ms`. */
function busy(ms: number) {
  const until = Date.now() + ms
  while (Date.now() < until) {}
}

describe.runIf(testingBuild)("the gateway's event loop reads the reports", () => {
  it.runIf(unix)('on Unix the loop reads, not a thread', async () => {
    expect(expectStatus(await session().exec({ code: '1' }), 'completed').value).toBe(1)
    expect(__testSandboxReaders()).toEqual(['loop'])
  })

  it('a main thread busy past the silence bound neither loses the leg nor gets its process killed', { timeout: 60_000 }, async () => {
    expect(expectStatus(await session().exec({ code: '0' }), 'completed').value).toBe(0)
    const before = __testSandboxPids()
    // Heartbeats come every second, and what waits unread a whole tick (200 ms) is read within
    // two: two seconds of silence are never reached while the process answers.
    __testSandboxPolicy(undefined, 2000)
    try {
      // The tool keeps this thread (and so its event loop) busy for two and a half silence
      // bounds, while the cell waits on it in its process: the process's heartbeats wait in the
      // pipe unless someone else reads them.
      const blocking = session((call) => {
        if (call.name === 'hold') busy(5000)
        return call.input
      })
      const leg = blocking.exec({ code: 'await tools.hold({}); let s = 0; for (let i = 0; i < 1000; i++) s += i; s' })
      expect(expectStatus(await leg, 'completed').value).toBe(499_500)
      expect(__testSandboxPids()).toEqual(before)
      expect(expectStatus(await session().exec({ code: '2' }), 'completed').value).toBe(2)
    } finally {
      __testSandboxPolicy()
    }
  })
})

describe.runIf(testingBuild)('threads read where the loop cannot', () => {
  it('with threads reading, cells run, park, resume and call tools; a crash fails only its legs', { timeout: 60_000 }, async () => {
    __testReadReportsOnThreads(true)
    try {
      // The next process is read by a thread: end the one there is.
      expect(await __testProbe('abort', 0)).toMatch(/^ended: /)
      expect(expectStatus(await session().exec({ code: 'await tools.echo({ n: 5 })' }), 'completed').value).toEqual({ n: 5 })
      expect(__testSandboxReaders()).toEqual(['thread'])

      const parker = session()
      const parked = expectStatus(await parker.exec({ code: 'text("parked"); await yield_control(); "resumed"' }), 'waiting')
      expect(expectStatus(await parker.wait({ runId: parked.runId }), 'completed').value).toBe('resumed')

      const called = deferred<void>()
      const stuck = session(() => {
        called.resolve()
        return new Promise(() => {})
      })
      const leg = stuck.exec({ code: 'await tools.hold({}); "never"' })
      await called.promise
      expect(await __testProbe('segfault', 0)).toMatch(/^ended: /)
      expect(expectStatus(await leg, 'failed')).toMatchObject({ code: 'runtime_unavailable', failurePhase: 'host' })
      expect(expectStatus(await session().exec({ code: '3' }), 'completed').value).toBe(3)
    } finally {
      __testReadReportsOnThreads(false)
      // Leave a process the loop reads for the other files' tests.
      await __testProbe('abort', 0)
    }
  })

  it.runIf(unix)('a host that only imitates Node (Bun, Deno) is read by threads: its libuv functions may be stubs', { timeout: 60_000 }, () => {
    const index = new URL('../index.js', import.meta.url).pathname
    const nativeJs = new URL('../lib/native.js', import.meta.url).pathname
    // `imitation`: a runtime's name in `process.versions`, or '' for Node itself.
    const readers = (imitation: string) => {
      const script = `
        if (${JSON.stringify(imitation)}) Object.defineProperty(process.versions, ${JSON.stringify(imitation)}, { value: '1.0.0', enumerable: true })
        const { CodeModeRun } = require(${JSON.stringify(index)})
        const { __testSandboxReaders } = require(${JSON.stringify(nativeJs)})
        const run = CodeModeRun.create({ config: { enabled: true }, runId: 'r', tools: [{ name: 'echo' }], executor: (c) => c.input })
        run.exec({ code: 'await tools.echo({ n: 1 })' }).then((r) => console.log(JSON.stringify({ value: r.value, readers: __testSandboxReaders() })))
      `
      const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 })
      expect(child.status, child.stderr).toBe(0)
      return JSON.parse(child.stdout.trim().split('\n').pop() ?? '')
    }
    expect(readers('')).toEqual({ value: { n: 1 }, readers: ['loop'] })
    expect(readers('bun')).toEqual({ value: { n: 1 }, readers: ['thread'] })
    expect(readers('deno')).toEqual({ value: { n: 1 }, readers: ['thread'] })
  })

  it.runIf(unix)('when the environment whose loop reads ends, threads take over its processes', { timeout: 60_000 }, () => {
    // A worker thread loads the addon first (its loop reads), runs a cell and ends; the main
    // thread then runs cells in the same process.
    const index = new URL('../index.js', import.meta.url).pathname
    const nativeJs = new URL('../lib/native.js', import.meta.url).pathname
    const script = `
      const { Worker } = require('node:worker_threads')
      const index = ${JSON.stringify(index)}
      const tools = [{ name: 'echo' }]
      const worker = new Worker(\`
        const { parentPort } = require('node:worker_threads')
        const { CodeModeRun, configureCodeModeRuntime } = require(\${JSON.stringify(index)})
        configureCodeModeRuntime({ sandboxProcesses: 1 })
        const run = CodeModeRun.create({ config: { enabled: true }, runId: 'w', tools: \${JSON.stringify(tools)}, executor: (c) => c.input })
        run.exec({ code: 'await tools.echo({ from: "worker" })' }).then((r) => parentPort.postMessage(r.value))
      \`, { eval: true })
      worker.once('message', async (fromWorker) => {
        await worker.terminate()
        const { CodeModeRun } = require(index)
        const { __testSandboxReaders, __testSandboxPids } = require(${JSON.stringify(nativeJs)})
        const pids = __testSandboxPids()
        const run = CodeModeRun.create({ config: { enabled: true }, runId: 'm', tools, executor: (c) => c.input })
        const first = await run.exec({ code: 'await tools.echo({ from: "main" })' })
        const second = await run.exec({ code: '40 + 2' })
        console.log(JSON.stringify({ fromWorker, first: first.value, second: second.value, readers: __testSandboxReaders(), same: JSON.stringify(pids) === JSON.stringify(__testSandboxPids()) }))
      })
    `
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 })
    expect(child.status, child.stderr).toBe(0)
    expect(JSON.parse(child.stdout.trim().split('\n').pop() ?? '')).toEqual({
      fromWorker: { from: 'worker' },
      first: { from: 'main' },
      second: 42,
      readers: ['thread'],
      same: true,
    })
  })
})
