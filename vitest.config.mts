import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/**
 * The addon the suites load: the testing build (`npm run build:test`, with the `testing` feature's
 * `__test*` exports) in target/testing/, never the package root's `code-mode.<platform>.node`,
 * which is the release build users and `npm run package` get. binding.js loads the file that
 * NAPI_RS_NATIVE_LIBRARY_PATH names (napi-rs's own override), and every child process the
 * suites start inherits it. Without a testing build (the release workflow's test-binding job,
 * which downloads a release binary) the suites load the root's binary as users do.
 */
function testingAddon(): string | undefined {
  const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'target', 'testing')
  if (!existsSync(dir)) return undefined
  const addons = readdirSync(dir).filter((f) => /^code-mode\.[\w-]+\.node$/.test(f))
  if (addons.length > 1) throw new Error(`target/testing holds more than one addon (${addons.join(', ')}): remove the stale ones`)
  return addons.length === 1 ? join(dir, addons[0]) : undefined
}

const addon = testingAddon()

export default defineConfig({
  test: {
    // Native addons and worker-thread pools don't mix: one child process per test file.
    pool: 'forks',
    // The leak tests collect garbage before they read RSS, so that they measure native memory.
    execArgv: ['--expose-gc'],
    include: ['__test__/**/*.spec.ts', 'examples/**/*.spec.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    env: addon ? { NAPI_RS_NATIVE_LIBRARY_PATH: addon } : {},
    // One temporary folder per run, removed at its end (__test__/support/temp-root.ts).
    globalSetup: ['__test__/support/temp-root.ts'],
  },
})
