// @openclaw/code-mode/testing's createTestRun (this library's guest API): a partial config keeps
// code mode on, and maxLegs caps the results execUntilDone takes.
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

  it('takes at most maxLegs results', async () => {
    const test = createTestRun({ tools: slowTool, config: { timeoutMs: 100 } })
    const one = await test.execUntilDone('return (await tools.deploy_status()).status', { maxLegs: 1 })
    expect(one.status).toBe('waiting')
    expect(one.legs).toHaveLength(1)
    await expect(test.execUntilDone('1', { maxLegs: 0 })).rejects.toThrow('maxLegs must be a positive integer; got 0')
  })
})
