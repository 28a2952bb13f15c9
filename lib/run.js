// @ts-check
'use strict'
// CodeModeRun: one agent run's exec/wait legs and their promises and AbortSignals, the native
// port's messages, nested calls handed to the executor, events.

const native = require('./native.js')
const { legStarted, legEnded } = require('./keep-alive.js')
const { catalogFor } = require('./catalog-cache.js')
const { describeNamespaces } = require('./namespaces.js')
const { NestedCall, errorMessage, reportOutcome } = require('./nested-call.js')
const { boundedJson, boundedText, jsonOf } = require('./bounded.js')
const { debugEnabled, debugLine, byteLength } = require('./debug-log.js')
const { adopted, callHost, handleRejection, ignore } = require('./host-callback.js')
const { CALL, LEG_DONE, ABORT_CELL, EVENT, FLOATING, forEachCall, nestedToolCallId, OutcomeQueue } = require('./generated/protocol.js')

/** @typedef {import('../index').CodeModeRunOptions} CodeModeRunOptions */
/** @typedef {import('../index').CodeModeResult} CodeModeResult */
/** @typedef {import('../index').CodeModeEvent} CodeModeEvent */
/** @typedef {import('../index').CodeModeExecInput} CodeModeExecInput */
/** @typedef {import('../index').CodeModeWaitInput} CodeModeWaitInput */
/** @typedef {import('../index').CodeModeLegOptions} CodeModeLegOptions */
/** @typedef {import('../index').NestedToolCall} NestedToolCall */
/** @typedef {import('../binding').NativeRun} NativeRun */
/** @typedef {import('../binding').CallTool} CallTool */
/** @typedef {import('./generated/protocol.js').BatchNamespace} BatchNamespace */
/** @typedef {import('./nested-call.js').RunScope} RunScope */
/**
 * What lib/tool-search.js adds to `CodeModeRunOptions` (internal to this package).
 * @typedef {CodeModeRunOptions & { [TOOL_SEARCH_GUEST]?: boolean }} InternalRunOptions
 */

/**
 * Calls the run's listener. A listener that throws, or returns a promise that rejects, must not
 * break the run (nor end the process: lib/host-callback.js), and must not fail silently either:
 * the first failure of each run is reported as a process warning (`OPENCLAW_CODE_MODE_ON_EVENT`);
 * every one is counted in `run.eventListenerErrors`.
 * @param {{ eventListenerErrors: number }} run
 * @param {((event: CodeModeEvent) => unknown) | undefined} onEvent
 * @param {CodeModeEvent} event
 */
function emit(run, onEvent, event) {
  if (typeof onEvent !== 'function') return
  callHost(
    () => onEvent(event),
    (error) => {
      if (run.eventListenerErrors++ === 0) {
        try {
          process.emitWarning(
            `code mode onEvent listener threw or rejected on a ${event?.type} event (later failures of this run are only counted in run.eventListenerErrors): ${errorMessage(error)}`,
            { code: 'OPENCLAW_CODE_MODE_ON_EVENT' },
          )
        } catch {}
      }
    },
  )
}

/**
 * @param {unknown} value
 * @returns {string | undefined} `value` when it is a non-empty string
 */
function optionalString(value) {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

// Internal to this package (lib/tool-search.js): a CodeModeRun created with
// `options[TOOL_SEARCH_GUEST] === true` runs its cells in Tool Search's VM (src/toolsearch) and
// installs no namespaces; `nativeOf` reaches its native half.
const TOOL_SEARCH_GUEST = Symbol('toolSearchGuest')
/** @type {(run: CodeModeRun) => NativeRun} */
let nativeOf
/** @type {(run: CodeModeRun, id: string, inputJson: string, options?: CodeModeLegOptions) => Promise<CodeModeResult>} */
let execCall

class CodeModeRun {
  static {
    nativeOf = (run) => run.#native
    // Tool Search's `tool_call`: one call of catalog tool `id` with `inputJson`, as a leg.
    execCall = (run, id, inputJson, options) => run.#leg('execCall', [id, inputJson], options)
  }

  /** @type {NativeRun} */
  #native
  /** @type {CodeModeRunOptions['executor']} */
  #executor
  /** @type {CodeModeRunOptions['onEvent']} */
  #onEvent
  /** @type {Map<number, (result: CodeModeResult) => void>} leg -> what its result settles */
  #legs = new Map()
  #nextLeg = 0
  /** @type {Map<number, Map<number, AbortController>>} cell id -> call id -> its controller */
  #calls = new Map()
  /**
   * Completed cells' calls still running (their results are dropped), oldest cell first: cell id
   * -> call id -> the bytes the gateway holds for its input. Within `maxPendingToolCalls` calls
   * and `maxSnapshotBytes` bytes in all, as a parked cell's (SECURITY.md); past either, the
   * oldest cell's are aborted.
   * @type {Map<number, Map<number, number>>}
   */
  #floating = new Map()
  /** @type {{ calls: number, bytes: number, input: number } | undefined} the floating budget, read once */
  #floatingBudget
  /** @type {Map<string, (((args: unknown[]) => unknown) | undefined)[]>} namespace id -> input mappers by callable index */
  #mappers = new Map()
  /** @type {RunScope} runId, sessionId, sessionKey, agentId: every nested call's scope */
  #scope
  /** @type {(CallTool | null)[]} The catalog tools nested calls named so far, by tool index (`NativeRun.callTool`) */
  #callTools = []
  /** @type {string | undefined} */
  #nestedIdPrefix
  #outcomes = new OutcomeQueue()
  #lifetime = new AbortController()
  /** OPENCLAW_DEBUG_CODE_MODE=1 when the run was created (see lib/debug-log.js). */
  #debug = debugEnabled()
  /** How many times `onEvent` threw (the first is also a process warning). */
  eventListenerErrors = 0

  /**
   * Builds the run-scoped catalog and model surface for one agent run. Throws only on misuse
   * (missing executor, tools not an array, missing runId).
   * @param {CodeModeRunOptions} options
   * @returns {CodeModeRun}
   */
  static create(options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('CodeModeRun.create(options): options must be an object.')
    }
    if (typeof options.executor !== 'function') {
      throw new TypeError('CodeModeRun.create(options): options.executor must be a function.')
    }
    if (!Array.isArray(options.tools)) {
      throw new TypeError('CodeModeRun.create(options): options.tools must be an array.')
    }
    if (typeof options.runId !== 'string' || options.runId.length === 0) {
      throw new TypeError('CodeModeRun.create(options): options.runId must be a non-empty string.')
    }
    return new CodeModeRun(options)
  }

  /** @param {InternalRunOptions} options */
  constructor(options) {
    this.#executor = options.executor
    this.#onEvent = options.onEvent
    this.#scope = {
      runId: options.runId,
      sessionId: optionalString(options.sessionId),
      sessionKey: optionalString(options.sessionKey),
      agentId: optionalString(options.agentId),
    }
    const self = new WeakRef(this)
    this.#native = new native.NativeRun(
      options.config,
      {
        runId: options.runId,
        sessionId: optionalString(options.sessionId),
        sessionKey: optionalString(options.sessionKey),
        agentId: optionalString(options.agentId),
        disableTools: options.disableTools === true,
        rawModelCall: options.rawModelCall === true,
        guest: options[TOOL_SEARCH_GUEST] === true ? 'tool_search' : undefined,
      },
      catalogFor(options.tools),
      // Through a WeakRef: the native run holds this function for as long as it lives, and a
      // strong `this` here would make a cycle through it that no collection ends (the run, its
      // executor's and onEvent's closures, its catalog in both processes, kept for ever). A
      // run with a leg in flight is held by lib/keep-alive.js.
      (kind, id, payload) => {
        const run = self.deref()
        if (run) run.#port(kind, id, payload)
      },
    )
    if (options[TOOL_SEARCH_GUEST] !== true) this.#installNamespaces(options)
  }

  /**
   * createScope runs once per run, here on the main thread; a failure hides that namespace.
   * @param {CodeModeRunOptions} options
   */
  #installNamespaces(options) {
    const candidates = this.#native.namespaceCandidates()
    const ctx = {
      agentId: optionalString(options.agentId),
      sessionKey: optionalString(options.sessionKey),
      sessionId: optionalString(options.sessionId),
      runId: options.runId,
      config: options.context,
      signal: this.#lifetime.signal,
    }
    const descriptors = describeNamespaces(candidates, ctx, this.#mappers)
    const hidden = this.#native.installNamespaces(descriptors)
    for (const { id, reason } of hidden) {
      emit(this, this.#onEvent, { type: 'namespace_hidden', runId: options.runId, namespaceId: id, reason })
    }
  }

  /** False when code mode does not apply to this run (config off, no tools, raw call). */
  get active() {
    return this.#native.active
  }

  /** Why the run is inactive (`'disabled'`, `'raw_model_call'`, `'tools_disabled'`, `'no_tools'`); undefined when active. */
  get inactiveReason() {
    return this.#native.inactiveReason ?? undefined
  }

  /** The resolved `tools.codeMode` settings of this run. */
  get config() {
    return this.#native.config
  }

  /** Exactly `[exec, wait]` when active, `[]` otherwise. */
  get modelTools() {
    return this.#native.modelTools
  }

  /** The guest-visible `ALL_TOOLS` view (no MCP entries, no schemas). */
  get catalog() {
    return this.#native.catalog
  }

  /** Host-only counters (never shown to the model). */
  get telemetry() {
    return this.#native.telemetry
  }

  /**
   * Runs a cell. Resolves to a `CodeModeResult`; never rejects.
   * @param {CodeModeExecInput} input
   * @param {CodeModeLegOptions} [options]
   * @returns {Promise<CodeModeResult>}
   */
  exec(input, options) {
    return this.#leg('exec', input, options)
  }

  /**
   * Continues a waiting cell by its `runId`. Resolves to a `CodeModeResult`; never rejects.
   * @param {CodeModeWaitInput} input
   * @param {CodeModeLegOptions} [options]
   * @returns {Promise<CodeModeResult>}
   */
  wait(input, options) {
    return this.#leg('wait', input, options)
  }

  /** Drops every cell this run created and aborts their nested calls. */
  abort() {
    this.#lifetime.abort()
    // Every call still running, a completed cell's floating calls too: their cell no longer
    // reports their end, and an executor that never settles them would keep them here.
    const calls = [...this.#calls.values()]
    this.#calls.clear()
    this.#floating.clear()
    for (const cell of calls) {
      for (const controller of cell.values()) controller.abort(new Error('code mode run aborted'))
    }
    this.#native.abort()
  }

  /**
   * One exec or wait leg, or Tool Search's `tool_call` (`execCall`, whose input is `[id,
   * inputJson]`).
   * @param {'exec' | 'wait' | 'execCall'} kind
   * @param {unknown} input
   * @param {CodeModeLegOptions | undefined} options
   * @returns {Promise<CodeModeResult>}
   */
  #leg(kind, input, options) {
    this.#nextLeg = (this.#nextLeg % 0x7fffffff) + 1
    const leg = this.#nextLeg
    // The options and their signal are the host's: read once, and a getter or method of theirs
    // that throws makes a failed result, never a rejection or a leg left waiting.
    /** @type {string | undefined} */
    let toolCallId
    /** @type {any} The host's, trusted for nothing. */
    let signal
    let aborted = false
    try {
      toolCallId = optionalString(options?.toolCallId)
      signal = options?.signal ?? undefined
      aborted = signal?.aborted === true
    } catch (error) {
      return Promise.resolve(this.#refused(`the leg's options could not be read (options.signal, options.toolCallId): ${errorMessage(error)}`))
    }
    // The input is the host's too (a model's raw arguments, in whatever object holds them): the
    // native side reads its own keys once, and names a getter or Proxy trap that throws
    // (src/input.rs).
    // A signal may call its listener at once, inside addEventListener (no AbortSignal does, but
    // the host's is trusted for nothing): before the leg starts, that counts as aborted at start.
    let started = false
    const onAbort = () => {
      if (started) this.#native.abortLeg(leg)
      else aborted = true
    }
    /** @type {() => void} */
    let unlisten = () => {}
    if (signal && !aborted) {
      try {
        if (typeof signal.addEventListener === 'function') {
          signal.addEventListener('abort', onAbort, { once: true })
          const listened = signal
          unlisten = () => {
            try {
              listened.removeEventListener?.('abort', onAbort)
            } catch {}
          }
        }
      } catch (error) {
        return Promise.resolve(this.#refused(`options.signal.addEventListener threw: ${errorMessage(error)}`))
      }
    }
    const debug = this.#debug ? this.#debugLeg(kind, leg, toolCallId, input) : undefined
    return new Promise((outer) => {
      /** @type {(result: CodeModeResult) => void} */
      const resolve = debug ? (result) => outer(debug(result)) : outer
      const call = /** @type {[string, string]} */ (input)
      const abortedAtStart = aborted
      let immediate
      try {
        immediate =
          kind === 'execCall'
            ? this.#native.execCall(call[0], call[1], leg, toolCallId, aborted)
            : this.#native[kind](input, leg, toolCallId, aborted)
      } catch (error) {
        unlisten()
        throw error
      }
      started = true
      if (immediate !== null && immediate !== undefined) {
        unlisten()
        resolve(JSON.parse(immediate))
        return
      }
      legStarted(this)
      this.#legs.set(leg, (result) => {
        legEnded(this)
        resolve(result)
        unlisten()
      })
      // The signal fired during the native call (a getter of the host's input aborted it).
      if (aborted && !abortedAtStart) this.#native.abortLeg(leg)
    })
  }

  /**
   * A leg refused before it started, for a reason the host's own arguments gave.
   * @param {string} message
   * @returns {CodeModeResult}
   */
  #refused(message) {
    /** @type {any} */
    const result = { status: 'failed', error: message, code: 'invalid_input', failurePhase: 'input' }
    try {
      result.telemetry = this.#native.telemetry
    } catch {}
    return result
  }

  /**
   * The debug line of one leg, written as its result arrives (sizes, never contents).
   * @param {string} kind
   * @param {number} leg
   * @param {string | undefined} toolCallId
   * @param {unknown} input
   * @returns {(result: CodeModeResult) => CodeModeResult}
   */
  #debugLeg(kind, leg, toolCallId, input) {
    const started = performance.now()
    const inputBytes = byteLength(jsonOf(input))
    return (result) => {
      /** @type {{ status?: string, code?: string, failurePhase?: string, runId?: string, pendingToolCalls?: unknown[] }} */
      const fields = result
      debugLine('leg', {
        kind,
        leg,
        runId: this.#scope.runId,
        toolCallId,
        status: fields?.status,
        code: fields?.code,
        failurePhase: fields?.failurePhase,
        cellRunId: fields?.runId,
        pendingToolCalls: fields?.pendingToolCalls?.length,
        ms: Math.round((performance.now() - started) * 1000) / 1000,
        inputBytes,
        resultBytes: byteLength(jsonOf(result)),
      })
      return result
    }
  }

  /**
   * Every native message arrives here; nothing may throw out of it.
   * @param {number} kind
   * @param {number} id
   * @param {string} payload
   */
  #port(kind, id, payload) {
    try {
      if (kind === CALL) {
        // Every call the cell started since its previous batch.
        forEachCall(payload, (call, toolIndex, input, namespace, parent) =>
          this.#startCall(id, call, toolIndex, input, namespace, parent),
        )
      } else if (kind === LEG_DONE) {
        const done = this.#legs.get(id)
        if (done) {
          this.#legs.delete(id)
          done(JSON.parse(payload))
        }
      } else if (kind === ABORT_CELL) {
        this.#abortCell(id)
      } else if (kind === EVENT) emit(this, this.#onEvent, JSON.parse(payload))
      else if (kind === FLOATING) this.#float(id, payload)
    } catch {
      // Only a bug can get here; the run carries on.
    }
  }

  /**
   * Aborts every call cell `cell` still has running.
   * @param {number} cell
   */
  #abortCell(cell) {
    this.#floating.delete(cell)
    const calls = this.#calls.get(cell)
    if (!calls) return
    this.#calls.delete(cell)
    for (const controller of calls.values()) controller.abort(new Error('code mode cell ended'))
  }

  /**
   * Cell `cell` completed with calls maybe still running (`[[call, inputBytes], …]` from its
   * sandbox, which is trusted for nothing): those it really has running are kept within the
   * run's budget, the oldest cell's aborted past it.
   * @param {number} cell
   * @param {string} payload
   */
  #float(cell, payload) {
    const calls = this.#calls.get(cell)
    if (!calls) return
    const budget = (this.#floatingBudget ??= {
      calls: this.#native.config.maxPendingToolCalls,
      bytes: this.#native.config.maxSnapshotBytes,
      input: this.#native.config.maxToolInputBytes,
    })
    /** @type {Map<number, number>} */
    const kept = new Map()
    const listed = JSON.parse(payload)
    if (!Array.isArray(listed)) return
    for (const entry of listed) {
      const [call, bytes] = Array.isArray(entry) ? entry : []
      // A number the sandbox says the gateway holds for an input is at most what one input may hold.
      if (calls.has(call) && !kept.has(call)) kept.set(call, Math.min(budget.input, Math.max(0, Number(bytes) || 0)))
    }
    if (kept.size === 0) return
    this.#floating.set(cell, kept)
    let count = 0
    let bytes = 0
    for (const held of this.#floating.values()) {
      count += held.size
      for (const n of held.values()) bytes += n
    }
    for (const [oldest, held] of this.#floating) {
      if (count <= budget.calls && bytes <= budget.bytes) break
      count -= held.size
      for (const n of held.values()) bytes -= n
      this.#abortCell(oldest)
    }
  }

  /**
   * Outcomes of one microtask checkpoint go over together (see OutcomeQueue).
   * @param {number} cellId
   * @param {number} call
   * @param {boolean} ok
   * @param {string} text
   */
  #settle(cellId, call, ok, text) {
    if (this.#outcomes.push(cellId, call, ok, text)) queueMicrotask(this.#flushSettled)
  }

  #flushSettled = () => this.#outcomes.flush(this.#native)

  /**
   * One nested call of a batch (see lib/generated/protocol.js): the tool by catalog index, the
   * rest from this run's scope.
   * @param {number} cell
   * @param {number} call
   * @param {number} toolIndex
   * @param {unknown} rawInput
   * @param {BatchNamespace | undefined} namespace
   * @param {string | undefined} parentToolCallId
   */
  #startCall(cell, call, toolIndex, rawInput, namespace, parentToolCallId) {
    // A tool index past the catalog is a bug: the throw skips the call (see forEachCall).
    const tool = /** @type {CallTool} */ ((this.#callTools[toolIndex] ??= this.#native.callTool(toolIndex)))
    const toolCallId = nestedToolCallId((this.#nestedIdPrefix ??= this.#native.nestedIdPrefix), cell, call)
    const controller = new AbortController()
    let calls = this.#calls.get(cell)
    if (!calls) this.#calls.set(cell, (calls = new Map()))
    calls.set(call, controller)
    const scope = this.#scope
    // Events cost objects on every call: built only when someone listens.
    const onEvent = this.#onEvent
    const described =
      typeof onEvent === 'function'
        ? {
            toolCallId,
            parentToolCallId,
            toolId: tool.id,
            toolName: tool.name,
            source: tool.source,
            sourceName: tool.sourceName,
            runId: scope.runId,
          }
        : undefined
    let input = rawInput
    let mapperError
    if (namespace) {
      // A namespace callable sends its argument list; the registration's mapper makes the input.
      const args = Array.isArray(input) ? input : []
      const mapper = this.#mappers.get(namespace.id)?.[namespace.index]
      try {
        input = mapper ? mapper(args) : (args[0] ?? {})
        if (mapper && input !== null && typeof input === 'object' && typeof (/** @type {{ then?: unknown }} */ (input).then) === 'function') {
          // A mapper makes the input synchronously; a promise (handled, or its rejection would
          // end the process) is no tool input.
          handleRejection(input, ignore)
          input = undefined
          mapperError = 'namespace input mapper returned a promise; it must return the tool input itself'
        }
      } catch (error) {
        mapperError = `namespace input mapper failed: ${errorMessage(error)}`
      }
    }
    /** @type {NestedCall & Pick<NestedToolCall, 'mcp' | 'namespace'>} */
    const nested = new NestedCall(tool, input, toolCallId, parentToolCallId, scope, controller, (partial) => {
      if (described) emit(this, onEvent, { type: 'tool_call_update', ...described, partial })
    })
    if (tool.mcp) nested.mcp = { ...tool.mcp }
    if (namespace) nested.namespace = { id: namespace.id, globalName: namespace.globalName, path: namespace.path }
    const debug = this.#debug
    const started = described || debug ? performance.now() : 0
    const inputJson = described || debug ? jsonOf(input) : undefined
    // The debug line needs only the input's size: the call keeps no second copy of its input
    // for as long as the tool runs.
    const inputBytes = debug ? byteLength(inputJson) : 0
    if (described) {
      // A mapper's input is the plugin's object, whose strings may be views into larger ones
      // (a guest argument cut with `slice`): the event gets it parsed anew, owning its bytes.
      const bounded = boundedJson(inputJson, namespace ? undefined : input)
      emit(this, onEvent, {
        type: 'tool_call_start',
        ...described,
        input: bounded.value,
        ...(bounded.truncated ? { inputTruncated: true } : {}),
      })
    }
    // Runs inside promise callbacks: a throw here would be an unhandled rejection, which ends
    // the process. Nothing may escape.
    /** @type {(ok: boolean, text: string, error?: string) => void} */
    const finish = (ok, text, error) => {
      try {
        calls.delete(call)
        if (calls.size === 0 && this.#calls.get(cell) === calls) this.#calls.delete(cell)
        const floating = this.#floating.get(cell)
        if (floating?.delete(call) && floating.size === 0) this.#floating.delete(cell)
        const durationMs = described || debug ? Math.round((performance.now() - started) * 1000) / 1000 : 0
        if (described) {
          const result = ok ? boundedJson(text) : undefined
          emit(this, onEvent, {
            type: 'tool_call_end',
            ...described,
            durationMs,
            ok,
            ...(result ? { result: result.value } : { error: boundedText(error) }),
            ...(result?.truncated ? { resultTruncated: true } : {}),
            aborted: controller.signal.aborted,
          })
        }
        if (debug) {
          debugLine('call', {
            toolCallId,
            parentToolCallId,
            runId: scope.runId,
            toolId: tool.id,
            status: ok ? 'ok' : controller.signal.aborted ? 'aborted' : 'error',
            ms: durationMs,
            inputBytes,
            resultBytes: byteLength(text),
          })
        }
        this.#settle(cell, call, ok, text)
      } catch {
        // Only a bug can get here; the call stays pending and the leg's clock ends it.
      }
    }
    let pending
    try {
      // `adopted`, not Promise.resolve: a promise whose own `then` was replaced is still followed.
      pending = mapperError ? Promise.reject(new Error(mapperError)) : adopted(this.#executor(nested))
    } catch (error) {
      pending = Promise.reject(error)
    }
    reportOutcome(pending, finish)
  }
}

module.exports = { CodeModeRun, internals: { TOOL_SEARCH_GUEST, nativeOf, execCall } }
