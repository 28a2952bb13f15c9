// Internal: the wire format between the Rust core and the JS layer (see protocol.js).
import type { CodeModeEvent, CodeModeResult, NestedToolCall } from '../index'

export declare const CALL: 0
export declare const LEG_DONE: 1
export declare const ABORT_CELL: 2
export declare const EVENT: 3
export declare const SETTLE_JOIN_LIMIT: number

/** Where a namespace callable's call came from (0 in the batch when none). */
export interface BatchNamespace {
  id: string
  globalName: string
  path: string
  index: number
}

export interface CallRecord {
  call: number
  toolIndex: number
  input: unknown
  namespace: BatchNamespace | undefined
  parentToolCallId: string | undefined
}

export interface CallTool {
  id: NestedToolCall['id']
  name: NestedToolCall['name']
  source: NestedToolCall['source']
  sourceName: NestedToolCall['sourceName']
  mcp: NonNullable<NestedToolCall['mcp']> | null
}

export declare function forEachCall(
  payload: string,
  start: (
    call: number,
    toolIndex: number,
    input: unknown,
    namespace: BatchNamespace | undefined,
    parentToolCallId: string | undefined,
  ) => void,
): void
export declare function decodeCallBatch(payload: string): CallRecord[]
export declare function decodeCallTools(json: string): CallTool[]
export declare function nestedToolCallId(prefix: string, cell: number, call: number): string
export declare function decodeLegResult(payload: string): CodeModeResult
export declare function decodeEvent(payload: string): CodeModeEvent

/** Where a flush hands outcomes: a `NativeRun`, or a test double. */
export interface OutcomeSink {
  settle(cell: number, call: number, ok: boolean, payload: string): void
  settleMany(numbers: Float64Array, payloads: string): void
}

export declare class OutcomeQueue {
  constructor(joinLimit?: number)
  push(cell: number, call: number, ok: boolean, text: string): boolean
  flush(sink: OutcomeSink): void
}

export interface Outcome {
  cell: number
  call: number
  ok: boolean
  text: string
}

export interface OutcomeChunk {
  numbers: Float64Array
  payloads: string
}

export declare function packOutcomes(outcomes: Outcome[], joinLimit?: number): OutcomeChunk[]
