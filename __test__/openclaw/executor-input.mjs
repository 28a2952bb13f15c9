// The executor input these drivers hand the executor directly (contract.mjs, host-side.mjs,
// host-limits.mjs): `tools.codeMode` as openclaw 2026.9.6 resolves its defaults, and a one-tool
// catalog.

/** The resolved `tools.codeMode` of an exec input. */
export const config = {
  enabled: true,
  executor: 'quickjs',
  mode: 'only',
  timeoutMs: 5000,
  memoryLimitBytes: 64 << 20,
  maxOutputBytes: 65536,
  maxSnapshotBytes: 10 << 20,
  maxPendingToolCalls: 16,
  snapshotTtlSeconds: 900,
  searchDefaultLimit: 8,
  maxSearchLimit: 50,
}

export const catalog = [
  { source: 'openclaw', name: 'add_one', label: 'Add', description: 'Adds one.', input: '{ x?: number }', callableName: 'add_one' },
]

/**
 * An exec input for `source`; `extra` replaces any of its fields.
 * @param {string} source
 * @param {Record<string, unknown>} [extra]
 */
export const execInput = (source, extra = {}) => ({ kind: 'exec', retainFinalValue: false, source, config, catalog, apiFiles: [], namespaces: [], swarmEnabled: false, ...extra })
