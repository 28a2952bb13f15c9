// `npm run demo` (examples/demo.mjs) shows what a model sees: each cell's code, the exact text
// the model receives, and a header whose catalog counts agree with the run's.
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('the demo', () => {
  it("prints each cell's code and the text the model receives; its header counts agree with the catalog", () => {
    const demo = spawnSync(process.execPath, [resolve(__dirname, '../examples/demo.mjs')], { encoding: 'utf8', timeout: 60_000 })
    expect(demo.status).toBe(0)
    const out = demo.stdout
    const header = /hidden catalog: (\d+) tools \((\d+) local, (\d+) behind MCP\.memory; (\d+) in ALL_TOOLS\)/.exec(out)
    expect(header).not.toBeNull()
    const [total, local, mcp, visible] = header!.slice(1).map(Number)
    expect(local + mcp).toBe(total)
    // The model's own view of the catalog says the same.
    expect(out).toContain(`"catalogSize": ${total}`)
    expect(out).toContain(`"catalogSize": ${visible},`)
    expect(out).toContain(`"mcp": ${mcp}`)
    // Every step shows its code and what the model receives, verbatim.
    const steps = out.split('\n━━ ').slice(1)
    expect(steps.length).toBeGreaterThanOrEqual(9)
    for (const step of steps) {
      expect(step).toMatch(/\n {3}(cell \((javascript|typescript)\)|wait input):\n/)
      expect(step).toContain('\n   the model receives:\n   │ {\n   │   "status": ')
    }
    expect(out).toContain('   │ const open = await tools.github_list_issues({ state: "open" });')
    expect(out).toContain('   │ let n = 0; while (true) n++')
    expect(out).toContain('"code": "timeout"')
  })
})
