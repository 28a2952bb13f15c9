// vitest globalSetup: every temporary file of a test run, the suites' own and their child
// processes' (npm, openclaw, MCP servers), goes under one folder of this run (TMPDIR, TMP and
// TEMP point there), which is removed when the run ends, passed or failed. Each suite still
// removes what it makes: a file left behind when the run ends is named here, once, as a leak.
//
// openclaw also writes to fixed paths whatever TMPDIR says (its rolling log in /tmp/openclaw,
// its state-lifecycle locks in /tmp/openclaw-state-locks-<uid>, and Node's compile cache in the
// system temp directory: `openclaw plugins install` probes npm's config with an environment of
// its own, which has no TMPDIR, and npm turns that cache on): those this run created are removed
// with it; ones that were there before belong to someone else and stay.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** openclaw's fixed temporary paths (POSIX only: on Windows it uses the user's profile). */
function openclawFixedPaths(): string[] {
  if (process.platform === 'win32') return []
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined
  return ['/tmp/openclaw', uid === undefined ? '/tmp/openclaw-state-locks' : `/tmp/openclaw-state-locks-${uid}`]
}

export default function setup() {
  const systemTmp = tmpdir()
  const dir = mkdtempSync(join(systemTmp, 'code-mode-tests-'))
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = dir
  const ours = [...openclawFixedPaths(), join(systemTmp, 'node-compile-cache')].filter((path) => !existsSync(path))
  return () => {
    let left: string[] = []
    try {
      // Node's compile cache, which openclaw turns on in its processes, lives there by design.
      left = readdirSync(dir).filter((name) => name !== 'node-compile-cache')
    } catch {}
    if (left.length > 0) console.warn(`temporary files the suites left behind (now removed): ${left.sort().join(', ')}`)
    rmSync(dir, { recursive: true, force: true })
    for (const path of ours) rmSync(path, { recursive: true, force: true })
  }
}
