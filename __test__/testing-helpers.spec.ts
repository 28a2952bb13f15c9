// @openclaw/code-mode/testing's createTestRun (this library's guest API): a partial config keeps
// code mode on, maxLegs caps the results execUntilDone takes, and options of the wrong type are
// refused by name.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupTestRuns, createTestRun } from '../lib/testing.js'

afterEach(() => cleanupTestRuns())

const slowTool = { deploy_status: () => new Promise((resolve) => setTimeout(() => resolve({ status: 'healthy' }), 300)) }

describe('createTestRun', () => {
  it('keeps code mode on with a partial config, as the CLI does', async () => {
    const test = createTestRun({ tools: slowTool, config: { timeoutMs: 100 } })
    expect(test.run.active).toBe(true)
    const result = await test.execUntilDone('return (await tools.deploy_status()).status')
    expect(result).toMatchObject({ status: 'completed', value: 'healthy' })
    // The 300 ms tool outlives the 100 ms leg: the config was applied, not replaced by defaults.
    expect(result.legs.length).toBeGreaterThan(1)
  })

  it('turns code mode off only when the config says so', () => {
    expect(createTestRun({ tools: slowTool, config: { enabled: false, timeoutMs: 100 } }).run.active).toBe(false)
    expect(createTestRun({ tools: slowTool, config: false }).run.active).toBe(false)
    expect(createTestRun({ tools: slowTool }).run.active).toBe(true)
  })

  it("gives each of two cells run at once on one run its own calls", async () => {
    const test = createTestRun({
      tools: { ...slowTool, lookup: (input: unknown) => ({ found: input }) },
      config: { timeoutMs: 100 },
    })
    // The slow cell's calls are recorded before the quick one's start and after it ends.
    const [slow, quick] = await Promise.all([
      test.execUntilDone('const a = await tools.deploy_status(); await tools.lookup({ id: "s" }); return a.status'),
      test.execUntilDone('return (await tools.lookup({ id: "q" })).found.id'),
    ])
    expect(slow).toMatchObject({ status: 'completed', value: 'healthy' })
    expect(slow.legs.length).toBeGreaterThan(1)
    expect(quick).toMatchObject({ status: 'completed', value: 'q' })
    expect(slow.calls.map((c) => [c.name, c.input])).toEqual([['deploy_status', {}], ['lookup', { id: 's' }]])
    expect(quick.calls.map((c) => [c.name, c.input])).toEqual([['lookup', { id: 'q' }]])
    expect(test.calls).toHaveLength(3)
  })

  it('refuses a config that would not run as written, naming each key', () => {
    for (const [config, message] of [
      [{ timeoutMS: 300 }, 'unknown key "timeoutMS" ignored (did you mean "timeoutMs"?)'],
      [{ timeoutMs: '300' }, '"timeoutMs": "300" is not a positive integer; used'],
      [{ timeoutMs: 5 }, '"timeoutMs": 5 is out of range; used'],
      [{ enabled: 'yes' }, '"enabled": "yes" ignored; it takes true or false'],
    ] as const) {
      expect(() => createTestRun({ tools: slowTool, config })).toThrow(TypeError)
      expect(() => createTestRun({ tools: slowTool, config })).toThrow(`createTestRun: config would not run as written: ${message}`)
    }
    // As the runtime reads them: a key set to undefined is left out, a list in any order is the same list.
    expect(createTestRun({ tools: slowTool, config: { timeoutMs: undefined, languages: ['typescript', 'javascript'] } }).run.active).toBe(true)
  })

  it('takes at most maxLegs results', async () => {
    const test = createTestRun({ tools: slowTool, config: { timeoutMs: 100 } })
    const one = await test.execUntilDone('return (await tools.deploy_status()).status', { maxLegs: 1 })
    expect(one.status).toBe('waiting')
    expect(one.legs).toHaveLength(1)
    await expect(test.execUntilDone('1', { maxLegs: 0 })).rejects.toThrow('maxLegs must be a positive integer; got 0')
  })

  it('refuses options, tools or namespaces of the wrong type with a TypeError naming them', () => {
    const refusal = (options: unknown) => {
      try {
        createTestRun(options as never)
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError)
        return (error as Error).message
      }
      throw new Error(`createTestRun accepted ${String(options)}`)
    }
    expect(refusal(null)).toBe('createTestRun(options): options must be an object such as { tools: { name: handler } }, not null')
    expect(refusal(5)).toMatch(/^createTestRun\(options\): options must be an object .*, not a number$/)
    expect(refusal({ tools: 5 })).toBe('createTestRun: tools must be an object of tool name → handler or { handler, description, ... }, not a number')
    expect(refusal({ tools: [() => 1] })).toMatch(/^createTestRun: tools must be an object .*, not an array$/)
    expect(refusal({ tools: { lookup: null } })).toBe('createTestRun: tool "lookup" needs a handler function')
    expect(refusal({ tools: slowTool, namespaces: {} })).toMatch(/^createTestRun: namespaces must be an array .*, not an object$/)
    // Left out, or null as before: an empty catalog.
    expect(createTestRun({ tools: null as never }).run.active).toBe(false)
  })
})
