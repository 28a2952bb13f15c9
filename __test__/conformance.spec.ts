// Cells mean what JavaScript means. Each case is a difference from the specification (and from
// pristine QuickJS) that test262 found in this package: builtins that threw a RangeError up
// front for array-like lengths over 2^24 (the old vendor patch 0002; now they poll the deadline
// instead, vendor/patches/rquickjs-sys/0010-deadline-in-array-like-loops.patch), and
// JavaScript cells that could not use `using` (crates/frontend/src/parse.rs). The full gate is
// __test__/test262.spec.ts; these name each fixed builtin.
import { describe, expect, it } from 'vitest'
import { expectStatus, makeRun } from './helpers.js'

const { run } = makeRun({ config: { enabled: true, timeoutMs: 10_000 } })

async function value(code: string) {
  return expectStatus(await run.exec({ code }), 'completed').value
}

/** An array-like of the longest length there is, whose first element throws when read. */
const HUGE = 'const huge = { length: 2 ** 53 - 1, get 0() { throw new SyntaxError("first element") } };'
const CAUGHT = (expr: string) => `${HUGE}\ntry { ${expr}; return 'no error' } catch (e) { return [e.name, e.message] }`
const FIRST = ['SyntaxError', 'first element']

describe('builtins over huge array-likes do what the specification says, not a RangeError', () => {
  it.each([
    ['Array.prototype.join', 'Array.prototype.join.call(huge)'],
    ['Array.prototype.toLocaleString', 'Array.prototype.toLocaleString.call(huge)'],
    ['Array.prototype.reverse', 'Array.prototype.reverse.call(huge)'],
    ['Array.prototype.shift', 'Array.prototype.shift.call(huge)'],
    ['Array.prototype.sort', 'Array.prototype.sort.call(huge)'],
    ['Array.prototype.flat', 'Array.prototype.flat.call(huge)'],
    ['Array.prototype.flatMap', 'Array.prototype.flatMap.call(huge, (x) => x)'],
    ['Array.prototype.concat', '[].concat(Object.defineProperty(huge, Symbol.isConcatSpreadable, { value: true }))'],
    ['String.raw', 'String.raw({ raw: huge })'],
  ])('%s: the first getter it reads throws, and that is what the cell sees', async (_name, expr) => {
    expect(await value(CAUGHT(expr))).toEqual(FIRST)
  })

  it('Array.prototype.concat: past 2^53 - 1 elements is a TypeError', async () => {
    expect(await value(CAUGHT('[1].concat({ length: 2 ** 53 - 1, [Symbol.isConcatSpreadable]: true })'))).toEqual([
      'TypeError',
      expect.any(String),
    ])
  })

  it('Array.prototype.unshift: past 2^53 - 1 is a TypeError; nothing to add is just the length', async () => {
    expect(await value(CAUGHT('Array.prototype.unshift.call({ length: 2 ** 53 - 1 }, 0)'))).toEqual(['TypeError', expect.any(String)])
    expect(await value('Array.prototype.unshift.call({ length: 2 ** 53 - 1 })')).toBe(2 ** 53 - 1)
  })

  it('Array.prototype.splice: past 2^53 - 1 is a TypeError; at the end it touches one index', async () => {
    expect(await value(CAUGHT('Array.prototype.splice.call({ length: 2 ** 53 - 1 }, 0, 0, "x")'))).toEqual(['TypeError', expect.any(String)])
    expect(
      await value(`const o = { length: 2 ** 53 - 1, [2 ** 53 - 2]: 'last' };
        const removed = Array.prototype.splice.call(o, 2 ** 53 - 2, 1);
        [removed, o.length, (2 ** 53 - 2) in o]`),
    ).toEqual([['last'], 2 ** 53 - 2, false])
  })

  it('Array.prototype.slice: the end of a huge array-like is a small array', async () => {
    expect(await value("Array.prototype.slice.call({ length: 2 ** 53 - 1, [2 ** 53 - 2]: 'last' }, 2 ** 53 - 2)")).toEqual(['last'])
  })

  it('Array.prototype.copyWithin: copying near the end of a huge array-like', async () => {
    expect(
      await value(`const o = { length: 2 ** 53 - 1, [2 ** 53 - 2]: 'last' };
        Array.prototype.copyWithin.call(o, 2 ** 53 - 3, 2 ** 53 - 2);
        [o[2 ** 53 - 3], o.length]`),
    ).toEqual(['last', 2 ** 53 - 1])
  })

  it("JSON.stringify: a replacer list's first element is read, and its error is the cell's", async () => {
    const replacer = `new Proxy([], { get(target, key) {
      if (key === 'length') return 2 ** 53 - 1
      if (key === '0') throw new SyntaxError('first element')
      return Reflect.get(target, key) } })`
    expect(await value(CAUGHT(`JSON.stringify({}, ${replacer})`))).toEqual(FIRST)
  })
})

describe('JavaScript cells parse what QuickJS runs', () => {
  it('using and await using dispose in reverse order at the end of their block', async () => {
    expect(
      await value(`const log = []
        {
          using a = { [Symbol.dispose]() { log.push('a') } }
          await using b = { async [Symbol.asyncDispose]() { log.push('b') } }
          log.push('body')
        }
        log`),
    ).toEqual(['body', 'b', 'a'])
  })

  it('a using declaration in a for-of head, and the completion value after it', async () => {
    expect(
      await value(`let disposed = 0
        for (using r of [{ [Symbol.dispose]() { disposed++ } }, { [Symbol.dispose]() { disposed++ } }]) {}
        using last = { [Symbol.dispose]() {} }
        disposed`),
    ).toBe(2)
  })
})
