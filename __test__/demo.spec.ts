// `npm run demo` (examples/demo.mjs) shows what a model sees: each cell's code, the exact text
// the model receives, and a header whose catalog counts agree with the run's.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('the demo', () => {
  it("prints each cell's code and the text the model receives; its header counts agree with the catalog", () => {
    // Its own temporary folder, to see that the demo leaves nothing there.
    const scratch = mkdtempSync(join(tmpdir(), 'code-mode-demo-spec-'))
    let demo: SpawnSyncReturns<string>
    let left: string[]
    try {
      demo = spawnSync(process.execPath, [resolve(__dirname, '../examples/demo.mjs')], { encoding: 'utf8', env: { ...process.env, TMPDIR: scratch, TMP: scratch, TEMP: scratch }, timeout: 60_000 })
      left = readdirSync(scratch)
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
    expect(demo.status).toBe(0)
    expect(left).toEqual([])
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
