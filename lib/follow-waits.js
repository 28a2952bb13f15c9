// @ts-check
'use strict'
// Following a cell to its end: its first leg (an exec), then a wait for each `waiting` result.
// The one loop of every place that follows cells: the test runs of lib/testing.js, `code-mode
// run` (lib/cli.js), Tool Search's `tool_call` (lib/tool-search.js), and the OpenClaw gateway
// harness (`followCell` in lib/openclaw-gateway.js, which the executor tests' driver and the
// bench use).

/**
 * Runs `first()`, then `next(runId, taken)` for as long as the latest result is `waiting` and
 * fewer than `maxLegs` results were taken (`taken` counts them). Resolves to every result, in
 * order: the last is the cell's end, or `waiting` when `maxLegs` ran out.
 * @template {{ status: string, runId?: string }} R
 * @param {() => Promise<R>} first
 * @param {(runId: string, taken: number) => Promise<R>} next
 * @param {number} [maxLegs] default: no limit
 * @returns {Promise<R[]>}
 */
async function followWaits(first, next, maxLegs = Infinity) {
  let last = await first()
  const legs = [last]
  while (last.status === 'waiting' && legs.length < maxLegs) {
    // A waiting result always names its token (`runId`); `wait` refuses a missing one.
    last = await next(/** @type {string} */ (last.runId), legs.length)
    legs.push(last)
  }
  return legs
}

module.exports = { followWaits }
