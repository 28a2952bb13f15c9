// vitest globalSetup: every temporary file of a test run, the suites' own and their child
// processes' (npm, openclaw, MCP servers), goes under one folder of this run (TMPDIR, TMP and
// TEMP point there), which is removed when the run ends, passed or failed. Each suite still
// removes what it makes: a file left behind when the run ends is named here, once, as a leak.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'code-mode-tests-'))
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = dir
  return () => {
    let left: string[] = []
    try {
      // Node's compile cache, which openclaw turns on in its processes, lives there by design.
      left = readdirSync(dir).filter((name) => name !== 'node-compile-cache')
    } catch {}
    if (left.length > 0) console.warn(`temporary files the suites left behind (now removed): ${left.sort().join(', ')}`)
    rmSync(dir, { recursive: true, force: true })
  }
}
