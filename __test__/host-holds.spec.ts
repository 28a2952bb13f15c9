// What a cell makes the gateway hold: a bounded field of an event owns only its bounded bytes.
// V8 makes a cut of a long string (`slice`, a template holding one) a view that keeps the whole
// alive, so a transcript that keeps events would keep every large tool result, input and error
// text they were cut from. Measured in bytes the heap keeps after a full collection (vitest runs
// with --expose-gc), never in time.
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { CodeModeRun, ToolSearchRun, type CodeModeEvent } from '../index.js'
import { TOOLS, expectStatus } from './helpers.js'
import { __testLiveRuns, testingBuild } from './support/native-testing.js'

const { boundedText, ownedText, EVENT_PAYLOAD_CHARS } = createRequire(import.meta.url)('../lib/bounded.js') as {
  boundedText: (text: string) => string
  ownedText: (text: string) => string
  EVENT_PAYLOAD_CHARS: number
}

const MiB = 1 << 20

/** Heap and external bytes in use after two full collections. */
function inUse() {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('the tests run with --expose-gc (vitest.config.mts)')
  gc()
  gc()
  const { heapUsed, external } = process.memoryUsage()
  return heapUsed + external
}

describe('bounded fields own their bytes', () => {
  it('a cut of a large text keeps only the cut', () => {
    const before = inUse()
    const kept: string[] = []
    for (let i = 0; i < 32; i++) {
      let source: string | undefined = `${'x'.repeat(4 * MiB)}${i}`
      kept.push(boundedText(source), ownedText(source.slice(100, 300)))
      source = undefined
    }
    const held = inUse() - before
    // 32 × (8 KiB + 200 characters) of text; a view each would be 32 × 4 MiB.
    expect(held).toBeLessThan(16 * MiB)
    expect(kept[0]).toBe(`${'x'.repeat(EVENT_PAYLOAD_CHARS)}…[truncated ${4 * MiB + 1 - EVENT_PAYLOAD_CHARS} characters]`)
    expect(kept[1]).toBe('x'.repeat(200))
  })

  it('an owned copy is the same text, lone surrogates included', () => {
    for (const text of ['', 'a', 'é€😀', '\ud800x\udfff', 'ÿ'.repeat(20_000), 'x'.repeat(13)]) expect(ownedText(text)).toBe(text)
    expect(boundedText('\ud83d'.repeat(EVENT_PAYLOAD_CHARS + 5)).startsWith('\ud83d'.repeat(EVENT_PAYLOAD_CHARS))).toBe(true)
  })

  it('a transcript of 64 events cut from large results, inputs and errors holds only the cuts', async () => {
    // Results, errors and inputs of 2 MiB each: a kept view of every one would be 384 MiB.
    // The events are all this test keeps (makeRun would keep every call and its input too).
    const events: CodeModeEvent[] = []
    const run = CodeModeRun.create({
      // 128 MiB crosses each way: a loaded machine must not turn it into a wall-clock `waiting`.
      config: { enabled: true, timeoutMs: 60_000 },
      runId: 'holds',
      tools: TOOLS,
      executor: (call) => {
        const n = (call.input as { n: number }).n
        if (n % 2 === 1) throw new Error(`${'e'.repeat(2 * MiB)}${n}`.slice(0, 300))
        return `${'r'.repeat(2 * MiB)}${n}`
      },
      onEvent: (event) => events.push(event),
    })
    const before = inUse()
    const result = await run.exec({
      code: `const pad = 'i'.repeat(${2 * MiB}); for (let n = 0; n < 64; n++) { try { await tools.read_file({ n, pad }) } catch {} } 'done'`,
    })
    expect(expectStatus(result, 'completed').value).toBe('done')
    const held = inUse() - before
    const ends = events.filter((e) => e.type === 'tool_call_end') as Array<{ ok: boolean; result?: unknown; error?: string; resultTruncated?: boolean }>
    expect(ends).toHaveLength(64)
    expect(ends[0]).toMatchObject({ ok: true, resultTruncated: true })
    expect(ends[1]).toMatchObject({ ok: false, error: 'e'.repeat(300) })
    const starts = events.filter((e) => e.type === 'tool_call_start') as Array<{ inputTruncated?: boolean }>
    expect(starts.every((e) => e.inputTruncated === true)).toBe(true)
    // 128 events of at most 8 KiB of text each: about 2 MiB (two-byte at worst), plus the run.
    expect(held).toBeLessThan(16 * MiB)
  }, 120_000)
})

describe('a run nobody holds is collected', () => {
  const gc = (globalThis as { gc?: () => void }).gc!
  /** Collects until the live runs drop to `at most` (finalizers run after a collection, on the next turns). */
  async function liveRunsAfterCollection(atMost: number) {
    let live = __testLiveRuns()
    for (let i = 0; i < 50 && live > atMost; i++) {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 10))
      live = __testLiveRuns()
    }
    return live
  }

  it.runIf(testingBuild)('with what its executor and onEvent capture, in Node and in its sandbox process', async () => {
    // One agent turn: a run whose callbacks close over the turn's state (1 MiB). A function of
    // its own, so that no register of the test's frame still holds the last run.
    async function turn(i: number) {
      const state = { transcript: Array.from({ length: 1 << 17 }, () => i) }
      const run = CodeModeRun.create({
        config: { enabled: true },
        runId: `collected-${i}`,
        tools: TOOLS,
        executor: () => state.transcript.length,
        onEvent: () => state.transcript.length,
      })
      expectStatus(await run.exec({ code: 'await tools.read_file({ path: "a" })' }), 'completed')
      if (i % 2 === 0) run.abort()
      // Tool Search's run too (a code-mode run inside).
      const search = ToolSearchRun.create({ config: { mode: 'tools' }, runId: `searched-${i}`, tools: TOOLS, executor: () => state.transcript.length })
      expect(await search.call('tool_call', { id: 'openclaw:core:read_file', args: {} })).toMatchObject({ status: 'completed' })
    }
    const before = await liveRunsAfterCollection(0)
    const heap = inUse()
    for (let i = 0; i < 40; i++) await turn(i)
    expect(await liveRunsAfterCollection(before)).toBe(before)
    // 40 × 1 MiB if the runs were kept.
    expect(inUse() - heap).toBeLessThan(16 * MiB)
  })

  it('but never while a leg of it is in flight: its result still arrives', async () => {
    let run: CodeModeRun | undefined = CodeModeRun.create({ config: { enabled: true }, runId: 'unheld', tools: TOOLS, executor: () => 1 })
    const held = new WeakRef(run)
    const leg = run.exec({ code: 'const end = Date.now() + 2000\nwhile (Date.now() < end) {}\nreturn true' })
    run = undefined
    // Collections while the cell computes (no nested call in flight holds the run): its leg does.
    for (let i = 0; i < 10; i++) {
      gc()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(held.deref()).toBeDefined()
    const settled = await Promise.race([leg, new Promise((resolve) => setTimeout(() => resolve('unsettled'), 10_000))])
    expect(expectStatus(settled as never, 'completed').value).toBe(true)
  })
})
