// The addon's test-only exports (built with the `testing` cargo feature, which `npm test`
// turns on; see src/testing_exports.rs). Typed here because the committed binding.d.ts comes
// from builds without them.
import { createRequire } from 'node:module'

export interface NativeTesting {
  __testPanic(kind: string, runId?: string | null): void
  __testStall(ms: number, runId?: string | null): void
  __testDecodeSettled(numbers: Float64Array, payloads: string): string
  __testWriteCalls(toolsJson: string, parent: string | null, calls: string): string
  __testAbandonedWorkers(): number
  __testCatalogBuilds(): number
  __testSearchWork(toolsJson: string, query: string, limit: number): string
  __testSandboxPids(): number[]
  __testSandboxCounts(): [number, number]
  __testProbe(operation: string, affinity: number): Promise<string>
  __testSandboxPolicy(retireBoundMs?: number, silentBoundMs?: number): void
  __testSilence(ms: number, affinity: number): void
  __testReadReportsOnThreads(on: boolean): void
  __testSandboxReaders(): string[]
  __testLiveRuns(): number
}

// Through lib/native.js, which also tells the addon where its sandbox executable is.
const native = createRequire(import.meta.url)('../../lib/native.js') as NativeTesting

export const {
  __testPanic,
  __testStall,
  __testDecodeSettled,
  __testWriteCalls,
  __testAbandonedWorkers,
  __testCatalogBuilds,
  __testSearchWork,
  __testSandboxPids,
  __testSandboxCounts,
  __testProbe,
  __testSandboxPolicy,
  __testSilence,
  __testReadReportsOnThreads,
  __testSandboxReaders,
  __testLiveRuns,
} = native

/**
 * Whether the loaded addon is a testing build (`npm test`'s). The release workflow's
 * `test-binding` job runs the suites against the release binary, which has none of the exports
 * above: what needs them is skipped there, and everything else runs on every platform.
 */
export const testingBuild = typeof (native as Partial<NativeTesting>).__testPanic === 'function'

/** The JS layer's cache of built catalogs (`lib/catalog-cache.js`). */
export const { clearCatalogCache } = createRequire(import.meta.url)('../../lib/catalog-cache.js') as {
  clearCatalogCache(): void
}
