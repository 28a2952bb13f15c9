// @ts-check
'use strict'
// What an executor sees of one nested call, and how its answer becomes the text that goes back
// to the sandbox.

/** @typedef {import('../binding').CallTool} CallTool */
/** @typedef {import('../index').NestedToolCall} NestedToolCall */
/** @typedef {{ runId: string, sessionId?: string, sessionKey?: string, agentId?: string }} RunScope */

/**
 * JSON text of a tool result: JSON.stringify semantics, cycles and BigInt replaced.
 * @param {unknown} value
 * @returns {string}
 */
function resultJson(value) {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? 'null' : text
  } catch {
    return tolerantJson(value)
  }
}

/**
 * JSON text of `value` with a BigInt as its digits and a cycle as "[Circular]"; `onObject`, if
 * given, sees each object and array first (it may throw to stop).
 * @param {unknown} value
 * @param {() => void} [onObject]
 * @returns {string}
 */
function tolerantJson(value, onObject) {
  /** @type {unknown[]} */
  const ancestors = []
  const text = JSON.stringify(value, function (_key, item) {
    if (typeof item === 'bigint') return String(item)
    if (item === null || typeof item !== 'object') return item
    onObject?.()
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop()
    if (ancestors.includes(item)) return '[Circular]'
    ancestors.push(item)
    return item
  })
  return text === undefined ? 'null' : text
}

/**
 * The message of what a tool (or a host callback) threw or rejected with.
 * @param {unknown} error
 * @returns {string}
 */
function errorMessage(error) {
  try {
    if (error instanceof Error) {
      // An executor may set `message` or `name` to anything: a number, an object, a Symbol. It is
      // shown as text, never dropped (the outcome queue carries strings only).
      for (const field of [error.message, error.name]) {
        if (field === undefined || field === null || field === '') continue
        const text = typeof field === 'string' ? field : textOf(field)
        if (text) return text
      }
      return 'tool call failed'
    }
    if (typeof error === 'string' && error) return error
    return textOf(error) || 'tool call failed'
  } catch {
    return 'tool call failed'
  }
}

/**
 * A thrown value as text: its JSON, else what `String` makes of it; '' when neither works.
 * @param {unknown} value
 * @returns {string}
 */
function textOf(value) {
  try {
    const text = JSON.stringify(value)
    if (typeof text === 'string' && text !== '{}') return text
  } catch {}
  try {
    return String(value)
  } catch {
    return ''
  }
}

/**
 * The `NestedToolCall` an executor receives. A class, not an object literal: a literal with a
 * getter costs ~1 µs per call in V8, an instance ~10 ns. `signal` is built on first read (Node
 * spends ~3 µs on an AbortSignal), so only executors that use it pay for it.
 * @implements {NestedToolCall}
 */
class NestedCall {
  #controller
  /**
   * @param {CallTool} tool
   * @param {unknown} input
   * @param {string} toolCallId
   * @param {string | undefined} parentToolCallId
   * @param {RunScope} scope
   * @param {AbortController} controller
   * @param {(partial: unknown) => void} onUpdate
   */
  constructor(tool, input, toolCallId, parentToolCallId, scope, controller, onUpdate) {
    this.#controller = controller
    this.id = tool.id
    this.name = tool.name
    this.source = tool.source
    this.sourceName = tool.sourceName
    this.input = input
    this.toolCallId = toolCallId
    this.parentToolCallId = parentToolCallId
    this.runId = scope.runId
    this.sessionId = scope.sessionId
    this.sessionKey = scope.sessionKey
    this.agentId = scope.agentId
    // A per-call closure: an executor may pass it around detached.
    this.onUpdate = onUpdate
  }

  /** Aborted when the call is no longer wanted (run aborted, cell ended). */
  get signal() {
    return this.#controller.signal
  }
}

/**
 * Reports what an executor's `pending` answer settles to, once: `finish(true, JSON text)`, or
 * `finish(false, message, message)` when it rejects or its value is not JSON-serialisable.
 * @param {Promise<unknown>} pending
 * @param {(ok: boolean, text: string, error?: string) => void} finish
 */
function reportOutcome(pending, finish) {
  pending.then(
    (value) => {
      let text
      try {
        text = resultJson(value)
      } catch (error) {
        const message = `tool result is not JSON-serialisable: ${errorMessage(error)}`
        return finish(false, message, message)
      }
      finish(true, text)
    },
    (error) => {
      const message = errorMessage(error)
      finish(false, message, message)
    },
  )
}

module.exports = { NestedCall, resultJson, tolerantJson, errorMessage, reportOutcome }
