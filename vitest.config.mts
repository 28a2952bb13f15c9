import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Native addons and worker-thread pools don't mix: one child process per test file.
    pool: 'forks',
    include: ['__test__/**/*.spec.ts', 'examples/**/*.spec.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
