// The JS half of the wire format (lib/protocol.js), round-tripped against reference codecs
// that mirror the Rust half (crates/catalog/src/calls.rs: `write_call` builds call batches;
// src/protocol/settle.rs: `decode` reads settled outcomes), and against the Rust half itself through the addon's test exports.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { __testDecodeSettled, __testWriteCalls } from './support/native-testing.js'
import {
  ABORT_CELL,
  CALL,
  EVENT,
  LEG_DONE,
  OutcomeQueue,
  SETTLE_JOIN_LIMIT,
  decodeCallBatch,
  decodeCallTools,
  forEachCall,
  nestedToolCallId,
  packOutcomes,
  type Outcome,
  type OutcomeChunk,
} from '../lib/protocol.js'

// --- reference codecs (the Rust side, in JS) -------------------------------------------------

/** Rust's `f64 as u64` / `as u32` / `as usize`: truncates, saturates, NaN becomes 0. */
const asUnsigned = (x: number, max: number) => (Number.isNaN(x) || x <= 0 ? 0 : Math.min(Math.trunc(x), max))

/** `String::from_utf16_lossy`: each unpaired surrogate becomes U+FFFD. */
const fromUtf16Lossy = (units: string) =>
  units.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')

interface Delivered {
  cell: number
  outcomes: { call: number; ok: boolean; text: string }[]
}

/**
 * `NativeRun::settle_many`: the per-cell batches it hands `Run::settle_many`. A lone outcome
 * sent through `settle` is the same as a chunk of one (`settle` calls `settle_many` with it).
 */
function settleMany(numbers: Float64Array, payloads: string): Delivered[] {
  const delivered: Delivered[] = []
  let at = 0
  for (let i = 0; i + 4 <= numbers.length; i += 4) {
    const cell = asUnsigned(numbers[i], 2 ** 64)
    const call = asUnsigned(numbers[i + 1], 2 ** 32 - 1)
    const ok = numbers[i + 2] !== 0
    const end = at + asUnsigned(numbers[i + 3], 2 ** 64)
    if (end > payloads.length) break // `units.get(at..end)` is None: the list ends there
    const text = fromUtf16Lossy(payloads.slice(at, end))
    at = end
    if (delivered.at(-1)?.cell !== cell) delivered.push({ cell, outcomes: [] })
    delivered.at(-1)!.outcomes.push({ call, ok, text })
  }
  return delivered
}

function unpack(chunks: OutcomeChunk[]): Outcome[] {
  return chunks.flatMap(({ numbers, payloads }) =>
    settleMany(numbers, payloads).flatMap(({ cell, outcomes }) => outcomes.map((o) => ({ cell, ...o }))),
  )
}

interface WrittenCall {
  call: number
  toolIndex: number
  /** The guest's JSON text, spliced in raw. */
  inputJson: string
  namespace?: { id: string; globalName: string; path: string[]; index: number }
}

/** `Run::write_call` for each call, then `Run::send_calls`'s closing bracket. */
function writeCalls(parent: string | null, calls: WrittenCall[]): string {
  let out = ''
  for (const c of calls) {
    if (out === '') out = '[' + (parent === null ? 'null' : JSON.stringify(parent))
    out += `,${c.call},${c.toolIndex},` + c.inputJson
    if (c.namespace) {
      const { id, globalName, path, index } = c.namespace
      out += ',' + JSON.stringify({ id, globalName, path: path.join('.'), index })
    } else out += ',0'
  }
  return out + ']'
}

// --- tests ----------------------------------------------------------------------------------

describe('port message kinds', () => {
  it('match the kinds of src/protocol/mod.rs', () => {
    const source = readFileSync(new URL('../src/protocol/mod.rs', import.meta.url), 'utf8')
    const kinds = Object.fromEntries([...source.matchAll(/pub const (\w+): u32 = (\d+);/g)].map((m) => [m[1], Number(m[2])]))
    expect(kinds).toEqual({ CALL, LEG_DONE, ABORT_CELL, EVENT })
    const args = Object.fromEntries([...source.matchAll(/Message::(\w+)\s*\{[^}]*\}\s*=>\s*\((\w+),/g)].map((m) => [m[1], m[2]]))
    expect(args).toEqual({ Calls: 'CALL', LegDone: 'LEG_DONE', AbortCell: 'ABORT_CELL', Event: 'EVENT' })
  })
})

describe('call batches', () => {
  const namespace = { id: 'notes', globalName: 'notes', path: ['items', 'add'], index: 2 }
  const calls: WrittenCall[] = [
    { call: 1, toolIndex: 0, inputJson: '{}' },
    // Brackets, commas and zeros inside the input must not shift the fields after it.
    { call: 2, toolIndex: 7, inputJson: '{"a":[1,2,{"b":"],0,0,["}],"c":null}' },
    { call: 3, toolIndex: 1, inputJson: '0', namespace },
    { call: 4, toolIndex: 0, inputJson: '"emoji 😀 é \\ud83d lone"' },
    { call: 5, toolIndex: 3, inputJson: 'null' },
    { call: 6, toolIndex: 2, inputJson: '[0,0,0,0]' },
    { call: 4_294_967_295, toolIndex: 0, inputJson: '-1.5e3' },
    { call: 8, toolIndex: 0, inputJson: 'false', namespace: { ...namespace, path: ['x'], index: 0 } },
  ]

  it('decode into the records write_call encoded', () => {
    for (const parent of ['tc-exec-1', 'quote " and \\ and 😀', null]) {
      const records = decodeCallBatch(writeCalls(parent, calls))
      expect(records).toEqual(
        calls.map(({ call, toolIndex, inputJson, namespace }) => ({
          call,
          toolIndex,
          input: JSON.parse(inputJson),
          namespace: namespace && { ...namespace, path: namespace.path.join('.') },
          parentToolCallId: parent ?? undefined,
        })),
      )
    }
    expect(decodeCallBatch(writeCalls(null, calls))[3].input).toBe('emoji 😀 é \ud83d lone')
  })

  it('decode a batch of one', () => {
    expect(decodeCallBatch(writeCalls(null, [{ call: 1, toolIndex: 4, inputJson: '{"q":1}' }]))).toEqual([
      { call: 1, toolIndex: 4, input: { q: 1 }, namespace: undefined, parentToolCallId: undefined },
    ])
  })

  it('start every other call when one start throws', () => {
    const started: number[] = []
    forEachCall(writeCalls('p', calls), (call) => {
      if (call === 3) throw new Error('bug')
      started.push(call)
    })
    expect(started).toEqual([1, 2, 4, 5, 6, 4_294_967_295, 8])
  })

  it('name their tools by index and their calls by cell and call', () => {
    const mcp = { serverName: 'github', toolName: 'create_issue', operation: 'tool' }
    const json = JSON.stringify([
      ['openclaw:core:read_file', 'read_file', 'openclaw', 'core', null],
      ['mcp:github:create_issue', 'create_issue', 'mcp', 'github', mcp],
    ])
    expect(decodeCallTools(json)).toEqual([
      { id: 'openclaw:core:read_file', name: 'read_file', source: 'openclaw', sourceName: 'core', mcp: null },
      { id: 'mcp:github:create_issue', name: 'create_issue', source: 'mcp', sourceName: 'github', mcp },
    ])
    expect(nestedToolCallId('cm_ab12_', 2 ** 40 + 1, 7)).toBe('cm_ab12_1099511627777_7')
  })
})

describe('settled outcomes', () => {
  const wellFormed = (outcomes: Outcome[]) => outcomes.map((o) => ({ ...o, text: fromUtf16Lossy(o.text) }))

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
    expect(chunks[0].payloads).toBe(outcomes.map((o) => o.text).join(''))
    expect(unpack(chunks)).toEqual(wellFormed(outcomes))
    expect(unpack(chunks)[1].text).toBe('a\ufffd')
    expect(unpack(chunks)[2].text).toBe('\ufffdb')
    expect(unpack(chunks)[4].text).toBe('\ufffd\ufffd\ud800\udc00')
    // Consecutive outcomes of one cell reach `Run::settle_many` as one batch.
    const [{ numbers, payloads }] = chunks
    expect(settleMany(numbers, payloads).map((d) => [d.cell, d.outcomes.length])).toEqual([
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
        if (next) expect(payloads.length + next.numbers[3]).toBeGreaterThan(limit)
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
    const back = unpack(chunks)
    expect(back.map(({ cell, call, ok }) => [cell, call, ok])).toEqual(outcomes.map(({ cell, call, ok }) => [cell, call, ok]))
    expect(back.every((o, i) => o.text === outcomes[i].text)).toBe(true)
  })

  it('go through settle alone and settleMany together, once per flush', () => {
    const sent: unknown[] = []
    const sink = {
      settle: (cell: number, call: number, ok: boolean, payload: string) => sent.push(['settle', cell, call, ok, payload]),
      settleMany: (numbers: Float64Array, payloads: string) => sent.push(['settleMany', [...numbers], payloads]),
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
      ['settleMany', [3, 2, 1, 3, 4, 1, 1, 2], '"a"😀'],
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

describe('the Rust half, through the test exports', () => {
  const tools = [{ name: 'read_file' }, { name: 'write_file' }]
  const toolsJson = JSON.stringify(tools)
  // Catalog ids; a tool's index is its place in the gateway's list.
  const ids = tools.map((t) => `openclaw:core:${t.name}`)

  it('decodes the batches crates/catalog/src/calls.rs writes', () => {
    const inputs = ['{"path":"a,0,1,{}]"}', '["😀","\\ud800",0]', '0', 'null', '{"nested":{"deep":[[[]]]}}']
    const calls = inputs.map((input, n) => [n + 1, ids[n % 2], input])
    for (const parent of [null, 'exec_1', 'quote"and\\back']) {
      const batch = __testWriteCalls(toolsJson, parent, JSON.stringify(calls))
      const decoded = decodeCallBatch(batch)
      expect(decoded.map((c) => [c.call, c.toolIndex, c.input, c.namespace, c.parentToolCallId])).toEqual(
        inputs.map((input, n) => [n + 1, n % 2, JSON.parse(input), undefined, parent ?? undefined]),
      )
    }
    // The writer refuses input that is not exactly one JSON value (it could forge a call).
    expect(__testWriteCalls(toolsJson, null, JSON.stringify([[1, ids[0], '{},0,1,{}']]))).toBe(
      'error: tool input must be JSON-serialisable',
    )
  })

  it('hands src/protocol/settle.rs exactly what lib/protocol.js packed', () => {
    const outcomes: Outcome[] = [
      { cell: 1, call: 1, ok: true, text: '{"a":"😀"}' },
      { cell: 1, call: 2, ok: false, text: 'boom \ud800 lone' },
      { cell: 2 ** 40, call: 7, ok: true, text: '' },
      { cell: 1, call: 3, ok: true, text: 'é'.repeat(1000) },
    ]
    for (const limit of [SETTLE_JOIN_LIMIT, 8, 1]) {
      const decoded = packOutcomes(outcomes, limit).flatMap(({ numbers, payloads }) =>
        (JSON.parse(__testDecodeSettled(numbers, payloads)) as [number, [number, boolean, string][]][]).flatMap(
          ([cell, list]) => list.map(([call, ok, text]) => ({ cell, call, ok, text })),
        ),
      )
      expect(decoded).toEqual(outcomes.map((o) => ({ ...o, text: fromUtf16Lossy(o.text) })))
    }
  })
})
