import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Native addons and worker-thread pools don't mix: one child process per test file.
    pool: 'forks',
    // The leak tests collect garbage before they read RSS, so that they measure native memory.
    execArgv: ['--expose-gc'],
    include: ['__test__/**/*.spec.ts', 'examples/**/*.spec.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
