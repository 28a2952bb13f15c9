// test262 as a gate: every test of the subset in test262/ (chosen and written there by
// tools/test262/subset.mjs from a tc39/test262 checkout at the pinned commit; its rules and counts
// are test262/subset.json) runs as a code-mode cell through the public API, and no test that
// pristine QuickJS passes under the same cell wrapping (test262/baseline.json, made by
// `node tools/test262/baseline.mjs`) may fail here. A test that passes here and not there is a
// gain, reported but not required.
//
// How a test becomes a cell, and what is left out of the subset and why, is in
// tools/test262/cells.mjs and tools/test262/subset.mjs: in short, cells are strict function
// bodies, so `noStrict`, `raw` and `module` tests cannot run; `$262` offers only `global` and
// `detachArrayBuffer`, so tests that need another realm, evalScript, gc or agents are out.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BASELINE, KNOWN_DIFFERENCES, ROOT, cellOf, listTests, outcomeOfResult, passed, type Outcome } from '../tools/test262/cells.mjs'
import { makeRun } from './helpers.js'

const present = existsSync(join(ROOT, 'test')) && existsSync(BASELINE)
if (!present) console.warn('test262: no subset in test262/ (node tools/test262/subset.mjs <test262>); the suite is skipped')

/** Cells in flight at once: enough to keep every worker busy while Node prepares the next. */
const IN_FLIGHT = 16

describe.skipIf(!present)('test262', () => {
  it('no test that pristine QuickJS passes fails as a cell', { timeout: 600_000 }, async () => {
    const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as { commit: string; tests: number; pass: string[] }
    const tests = listTests()
    // The baseline must be of this very subset; regenerate it with the subset.
    expect(tests.length).toBe(baseline.tests)
    const ids = new Set(tests.map((test) => test.id))
    expect(baseline.pass.filter((id) => !ids.has(id))).toEqual([])

    const { run } = makeRun({ config: { enabled: true, timeoutMs: 10_000 } })
    const outcomes = new Map<string, Outcome>()
    let next = 0
    const worker = async () => {
      while (next < tests.length) {
        const test = tests[next++]
        const result = await run.exec({ code: cellOf(test) })
        outcomes.set(test.id, outcomeOfResult(result))
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker))

    const pristine = new Set(baseline.pass)
    const known = new Set(KNOWN_DIFFERENCES.flatMap((difference) => difference.ids))
    const ours = tests.filter((test) => passed(test, outcomes.get(test.id)!))
    const regressions = tests
      .filter((test) => pristine.has(test.id) && !known.has(test.id) && !passed(test, outcomes.get(test.id)!))
      .map((test) => `${test.id}: ${JSON.stringify(outcomes.get(test.id))}`)
    const gains = ours.filter((test) => !pristine.has(test.id)).map((test) => test.id)
    // A known difference that passes now, or that is not in the subset, is a stale entry.
    const stale = [...known].filter((id) => !outcomes.has(id) || passed(tests.find((test) => test.id === id)!, outcomes.get(id)!))
    console.log(
      `test262 ${baseline.commit.slice(0, 12)}: ${tests.length} tests; pristine QuickJS passes ${pristine.size}, ` +
        `this package ${ours.length}; ${regressions.length} regressions, ${known.size} known differences, ${gains.length} gains` +
        (gains.length > 0 ? `:\n  ${gains.join('\n  ')}` : ''),
    )
    expect(regressions).toEqual([])
    expect(stale).toEqual([])
  })
})
