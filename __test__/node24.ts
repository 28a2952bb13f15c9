// Node 24 for the suites that drive the installed gateway (openclaw needs Node >= 24.16): kept
// apart from helpers.ts, which loads the addon.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { resolve } from 'node:path'

/** The Node 24 of tools/node24 (openclaw's runtime needs Node >= 24.16). */
export const node24 = createRequire(import.meta.url)('../tools/node24').binary as string

/**
 * Runs a script under {@link node24} from the repository's root, with `env` over this process's
 * environment; resolves its stdout, rejects with the end of its stderr.
 */
export function runNode24(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node24, args, { cwd: resolve(__dirname, '..'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolvePromise(out) : reject(new Error(`${args.join(' ')} exited ${code}:\n${err.slice(-4000)}`))))
  })
}
