// @ts-check
'use strict'
// What of a `tools.codeMode` config would not run as written: a key the runtime (or the OpenClaw
// gateway) does not read, or a value it does not take as given. The CLI prints these as warnings
// for --config; the testing kit refuses a config that has any, so that no test runs with a
// setting it did not ask for.

/** This package's addon, whose config reader says what each value resolves to. */
function addon() {
  return require('../index.js')
}

/**
 * "did you mean" for an unknown config key.
 * @param {string} key
 * @param {string[]} known
 */
function closest(key, known) {
  const lower = key.toLowerCase()
  const hit = known.find((k) => k.toLowerCase() === lower)
  if (hit) return hit
  /**
   * @param {string} a
   * @param {string} b
   */
  const distance = (a, b) => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i)
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]
      row[0] = i
      for (let j = 1; j <= b.length; j++) {
        const next = row[j]
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
        prev = next
      }
    }
    return row[b.length]
  }
  const best = known.map((k) => /** @type {const} */ ([k, distance(lower, k.toLowerCase())])).sort((a, b) => a[1] - b[1])[0]
  return best && best[1] <= 3 ? best[0] : undefined
}

/**
 * The problems of `config`, each naming the key and what is used instead. `openclaw`: the keys are
 * the gateway's. `executorChosenBy`: what chooses the executor instead of an `executor` key.
 * `enabledHonoured`: `enabled` is taken as given (the testing kit), not always true (the CLI).
 * @param {Record<string, unknown>} config
 * @param {{ openclaw?: boolean, executorChosenBy: string, enabledHonoured?: boolean }} options
 * @returns {string[]}
 */
function configProblems(config, { openclaw = false, executorChosenBy, enabledHonoured = false }) {
  const problems = []
  /** @type {Record<string, unknown> | undefined} */
  let resolved
  try {
    // Read by key (the keys of `config`).
    resolved = { ...addon().resolveCodeModeConfig({ ...config, enabled: true }) }
  } catch {
    // Without the addon (--openclaw with upstream's executors) only the keys are checked.
  }
  const known = openclaw ? require('./openclaw-gateway.js').OPENCLAW_CONFIG_KEYS : resolved ? Object.keys(resolved) : []
  /** @param {unknown} v */
  const show = (v) => JSON.stringify(v)
  /** Equal as the runtime reads them: a list (`languages`) in any order. @param {unknown} a @param {unknown} b */
  const same = (a, b) => (Array.isArray(a) && Array.isArray(b) ? show([...a].sort()) === show([...b].sort()) : show(a) === show(b))
  for (const [key, value] of Object.entries(config)) {
    // Left out, as the runtime reads it: the default.
    if (value === undefined) continue
    if (!known.includes(key)) {
      if (known.length === 0) continue
      const near = closest(key, known)
      problems.push(`unknown key "${key}" ignored${near ? ` (did you mean "${near}"?)` : ''}`)
    } else if (key === 'enabled') {
      if (enabledHonoured ? typeof value !== 'boolean' : value !== true) {
        problems.push(`"enabled": ${show(value)} ignored; ${enabledHonoured ? 'it takes true or false' : 'code-mode always runs with "enabled": true'}`)
      }
    } else if (key === 'executor') {
      problems.push(`"executor": ${show(value)} ignored; ${executorChosenBy}`)
    } else if (resolved && Object.hasOwn(resolved, key) && typeof resolved[key] === 'number') {
      if (value !== resolved[key]) {
        const why = typeof value === 'number' && Number.isInteger(value) && value > 0 ? 'is out of range' : 'is not a positive integer'
        problems.push(`"${key}": ${show(value)} ${why}; used ${resolved[key]}`)
      }
    } else if (resolved && Object.hasOwn(resolved, key) && !same(value, resolved[key])) {
      problems.push(`"${key}": ${show(value)} not accepted; used ${show(resolved[key])}`)
    }
  }
  return problems
}

module.exports = { configProblems }
