// The two hot formats between the addon and the JS layer, round-tripped through both ends: the
// JS ends are generated from crates/protocol/src/packed.rs (lib/generated/protocol.js), the Rust
// ends are reached through the addon's test exports (crates/catalog/src/calls.rs writes call
// batches, src/protocol/settle.rs reads settled outcomes).
import { describe, expect, it } from 'vitest'
import { __testDecodeSettled, __testWriteCalls, testingBuild } from './support/native-testing.js'
import {
  OutcomeQueue,
  SETTLE_JOIN_LIMIT,
  decodeCallBatch,
  forEachCall,
  nestedToolCallId,
  packOutcomes,
} from '../lib/generated/protocol.js'

interface Outcome {
  cell: number
  call: number
  ok: boolean
  text: string
}
type Chunk = ReturnType<typeof packOutcomes>[number]

/** What the Rust decoder makes of packed outcomes: `[cell, [[call, ok, text], …]]` runs. */
function rustDecode({ numbers, payloads }: Chunk): [number, [number, boolean, string][]][] {
  return JSON.parse(__testDecodeSettled(numbers, payloads))
}

/** Every outcome the Rust decoder reads back from the chunks, in order. */
function unpack(chunks: Chunk[]): Outcome[] {
  return chunks.flatMap((chunk) => rustDecode(chunk).flatMap(([cell, list]) => list.map(([call, ok, text]) => ({ cell, call, ok, text }))))
}

/** Each lone surrogate as U+FFFD, as in any string the JS layer hands the addon. */
const toWellFormed = (units: string) =>
  units.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
const wellFormed = (outcomes: Outcome[]) => outcomes.map((o) => ({ ...o, text: toWellFormed(o.text) }))

describe.runIf(testingBuild)('call batches', () => {
  const tools = [{ name: 'read_file' }, { name: 'write_file' }, { name: 'list' }, { name: 'search' }]
  const toolsJson = JSON.stringify(tools)
  // Catalog ids; a tool's index is its place in the gateway's list.
  const ids = tools.map((t) => `openclaw:core:${t.name}`)
  const namespace = { id: 'notes', globalName: 'notes', path: ['items', 'add'], index: 2 }
  const calls: [number, string, string, typeof namespace?][] = [
    [1, ids[0], '{}'],
    // Brackets, commas and zeros inside an input must not shift the fields after it.
    [2, ids[3], '{"a":[1,2,{"b":"],0,0,["}],"c":null}'],
    [3, ids[1], '0', namespace],
    [4, ids[0], '"emoji 😀 é \\ud83d lone"'],
    [5, ids[3], 'null'],
    [6, ids[2], '[0,0,0,0]'],
    [4_294_967_295, ids[0], '-1.5e3'],
    [8, ids[0], 'false', { ...namespace, path: ['x'], index: 0 }],
    [9, ids[1], '{"nested":{"deep":[[[]]]},"path":"a,0,1,{}]"}'],
  ]

  it('decode into the calls the Rust writer wrote', () => {
    for (const parent of ['tc-exec-1', 'quote " and \\ and 😀', null]) {
      const records = decodeCallBatch(__testWriteCalls(toolsJson, parent, JSON.stringify(calls)))
      expect(records).toEqual(
        calls.map(([call, id, input, ns]) => ({
          call,
          toolIndex: ids.indexOf(id),
          input: JSON.parse(input),
          namespace: ns && { ...ns, path: ns.path.join('.') },
          parentToolCallId: parent ?? undefined,
        })),
      )
    }
    expect(decodeCallBatch(__testWriteCalls(toolsJson, null, JSON.stringify(calls)))[3].input).toBe('emoji 😀 é \ud83d lone')
    expect(decodeCallBatch(__testWriteCalls(toolsJson, null, JSON.stringify([[7, ids[2], '{"q":1}']])))).toEqual([
      { call: 7, toolIndex: 2, input: { q: 1 }, namespace: undefined, parentToolCallId: undefined },
    ])
  })

  it('refuse an input that is not exactly one JSON value (it could forge a call)', () => {
    for (const input of ['{},0,1,{}', '1,2', '', '{']) {
      expect(__testWriteCalls(toolsJson, null, JSON.stringify([[1, ids[0], input]]))).toBe('error: tool input must be JSON-serialisable')
    }
  })

  it('start every other call when one start throws', () => {
    const started: number[] = []
    forEachCall(__testWriteCalls(toolsJson, 'p', JSON.stringify(calls)), (call) => {
      if (call === 3) throw new Error('bug')
      started.push(call)
    })
    expect(started).toEqual([1, 2, 4, 5, 6, 4_294_967_295, 8, 9])
  })

  it('name their calls by cell and call', () => {
    expect(nestedToolCallId('cm_ab12_', 2 ** 40 + 1, 7)).toBe('cm_ab12_1099511627777_7')
  })
})

describe.runIf(testingBuild)('settled outcomes', () => {
  it('round-trip emoji, lone surrogates, empty texts and large cell ids', () => {
    const outcomes: Outcome[] = [
      { cell: 1, call: 1, ok: true, text: '"ü😀✓"' },
      // A lone high surrogate at the end of one text and a lone low one at the start of the
      // next: joined they look like a pair, but each is cut by its own length.
      { cell: 1, call: 2, ok: false, text: 'a\ud83d' },
      { cell: 1, call: 3, ok: true, text: '\ude00b' },
      { cell: 2 ** 40 + 1, call: 4_294_967_295, ok: true, text: '' },
      { cell: 2, call: 1, ok: false, text: '\udc00\ud800\ud800\udc00' },
      { cell: 1, call: 4, ok: true, text: '😀'.repeat(3) },
    ]
    const chunks = packOutcomes(outcomes)
    expect(chunks).toHaveLength(1)
    const back = unpack(chunks)
    expect(back).toEqual(wellFormed(outcomes))
    expect(back[1].text).toBe('a\ufffd')
    expect(back[2].text).toBe('\ufffdb')
    expect(back[4].text).toBe('\ufffd\ufffd\ud800\udc00')
    // Consecutive outcomes of one cell reach the run as one batch (one wake-up of the cell).
    expect(rustDecode(chunks[0]).map(([cell, list]) => [cell, list.length])).toEqual([
      [1, 3],
      [2 ** 40 + 1, 1],
      [2, 1],
      [1, 1],
    ])
  })

  it('split at the join limit: every chunk of several fits, and each takes all that fit', () => {
    let seed = 7
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n)
    const pieces = ['x', 'é', '😀', '\ud83d', '\ude00', '"', '\\', '\u0000']
    for (let round = 0; round < 200; round++) {
      const limit = 1 + random(40)
      const outcomes: Outcome[] = Array.from({ length: 1 + random(12) }, (_, i) => ({
        cell: 1 + random(3),
        call: i + 1,
        ok: random(2) === 1,
        text: Array.from({ length: random(limit + 10) }, () => pieces[random(pieces.length)]).join(''),
      }))
      const chunks = packOutcomes(outcomes, limit)
      expect(unpack(chunks)).toEqual(wellFormed(outcomes))
      for (const [i, { numbers, payloads }] of chunks.entries()) {
        if (numbers.length > 4) expect(payloads.length).toBeLessThanOrEqual(limit)
        const next = chunks[i + 1]
        // (U+FFFD stands for one code unit: lengths are as packed.)
        if (next) expect(payloads.length + unpack([next])[0].text.length).toBeGreaterThan(limit)
      }
    }
  })

  it('split payloads over the real join limit into several chunks', () => {
    const big = 'x'.repeat(6_000_000)
    const huge = 'y'.repeat(SETTLE_JOIN_LIMIT + 1)
    const outcomes: Outcome[] = [
      { cell: 1, call: 1, ok: true, text: '1' + big },
      { cell: 1, call: 2, ok: true, text: '2' + big },
      { cell: 1, call: 3, ok: true, text: '3' + big },
      { cell: 1, call: 4, ok: true, text: huge },
      { cell: 1, call: 5, ok: false, text: 'small 😀' },
    ]
    const chunks = packOutcomes(outcomes)
    // 12 M fit together, a third 6 M would pass 16 M; an over-limit text goes alone.
    expect(chunks.map((c) => c.numbers.length / 4)).toEqual([2, 1, 1, 1])
    const texts = outcomes.map((o) => o.text)
    const joined = [texts[0] + texts[1], texts[2], texts[3], texts[4]]
    expect(chunks.every((chunk, i) => chunk.payloads === joined[i])).toBe(true)
    // The small last one, through the Rust decoder.
    expect(unpack(chunks.slice(-1))).toEqual([outcomes[4]])
  })

  it('go through settle alone and settleMany together, once per flush', () => {
    const sent: unknown[] = []
    const sink = {
      settle: (cell: number, call: number, ok: boolean, payload: string) => sent.push(['settle', cell, call, ok, payload]),
      settleMany: (numbers: Float64Array, payloads: string) => sent.push(['settleMany', rustDecode({ numbers, payloads })]),
    }
    const queue = new OutcomeQueue()
    expect(queue.push(3, 1, false, 'no')).toBe(true)
    queue.flush(sink)
    expect(queue.push(3, 2, true, '"a"')).toBe(true)
    expect(queue.push(4, 1, true, '😀')).toBe(false)
    queue.flush(sink)
    queue.flush(sink)
    expect(sent).toEqual([
      ['settle', 3, 1, false, 'no'],
      [
        'settleMany',
        [
          [3, [[2, true, '"a"']]],
          [4, [[1, true, '😀']]],
        ],
      ],
    ])
  })

  it('keep flushing after a sink throws, and queue what arrives during a flush for the next', () => {
    const queue = new OutcomeQueue(4)
    const sent: string[] = []
    const sink = {
      settle: (_cell: number, call: number, _ok: boolean, payload: string) => {
        if (call === 1) {
          expect(queue.push(9, 9, true, 'late')).toBe(true)
          throw new Error('bug')
        }
        sent.push(payload)
      },
      settleMany: (_numbers: Float64Array, payloads: string) => sent.push(payloads),
    }
    for (const [call, text] of [[1, 'aaaa'], [2, 'bb'], [3, 'cc'], [4, 'ddddd']] as const) queue.push(1, call, true, text)
    queue.flush(sink)
    expect(sent).toEqual(['bbcc', 'ddddd'])
    queue.flush(sink)
    expect(sent).toEqual(['bbcc', 'ddddd', 'late'])
  })
})
