// @ts-check
'use strict'
// ToolSearchRun: OpenClaw's Tool Search (`tools.toolSearch`) on this package's catalog and
// sandbox. A second host on the same engine: each run drives a code-mode run made for it (the
// Tool Search VM of src/toolsearch, the same catalog, executor path, events and counters), so a
// nested call is exactly a code-mode nested call. `tool_search_code` is a cell with a hard
// deadline and no suspension; the structured tools answer search and describe natively and run
// `tool_call` as a one-call cell that is followed to its end.

const native = require('./native.js')
const { CodeModeRun, internals } = require('./run.js')
const { followWaits } = require('./follow-waits.js')

const { TOOL_SEARCH_GUEST, nativeOf, execCall } = internals

/** @typedef {import('../index').ToolSearchRunOptions} ToolSearchRunOptions */
/** @typedef {import('../index').ToolSearchResult} ToolSearchResult */
/** @typedef {import('../index').ToolSearchCallOptions} ToolSearchCallOptions */
/** @typedef {import('../index').ToolSearchAgentTool} ToolSearchAgentTool */
/** @typedef {import('../index').ToolSearchConfig} ToolSearchConfig */
/** @typedef {import('../index').ToolSearchModelTool} ToolSearchModelTool */
/** @typedef {import('../index').ToolSearchToolCall} ToolSearchToolCall */
/** @typedef {import('../index').ToolSearchTelemetry} ToolSearchTelemetry */
/** @typedef {import('../index').CodeModeResult} CodeModeResult */
/** @typedef {import('../index').CodeModeOutput} CodeModeOutput */
/** @typedef {import('../index').CodeModeErrorCode} CodeModeErrorCode */
/** @typedef {import('../index').NestedToolCall} NestedToolCall */
/** @typedef {import('../index').CodeModeLegOptions} CodeModeLegOptions */
/** @typedef {Extract<ToolSearchResult, { status: 'completed' }>} ToolSearchCompleted */
/** @typedef {Extract<ToolSearchResult, { status: 'failed' }>} ToolSearchFailed */
/** @typedef {import('./run.js').CodeModeRun} CodeModeRunInstance */
/**
 * A Tool Search tool's input: an object (checked by `call`).
 * @typedef {Record<string, unknown>} ToolInput
 */

/** The structured tools follow a call this long per leg before continuing it (no deadline). */
const STRUCTURED_LEG_MS = 60_000
/** Tool calls kept in `telemetry.toolCalls` (the oldest go first). */
const MAX_RECORDED_CALLS = 1_000

/**
 * @param {unknown} value
 * @returns {string | undefined} `value` when it is a non-empty string
 */
function optionalString(value) {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

/**
 * The message of a thrown value.
 * @param {unknown} error
 * @returns {string}
 */
function messageOf(error) {
  const message = /** @type {{ message?: unknown } | null | undefined} */ (error)?.message
  return message !== undefined && message !== null ? String(message) : String(error)
}

/** @param {unknown} value */
function typeName(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** @param {unknown} value */
function isPositiveInteger(value) {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1
}

/**
 * The JSON type a `JSON.stringify` result holds, from its first character (it is never indented).
 * @param {string | undefined} json
 */
function jsonTypeName(json) {
  if (json === undefined) return 'nothing (undefined)'
  switch (json[0]) {
    case '"':
      return 'a string'
    case '[':
      return 'an array'
    case 'n':
      return 'null'
    case 't':
    case 'f':
      return 'a boolean'
    default:
      return 'a number'
  }
}

/**
 * What of a scalar query crosses to the sandbox: the search reads its first `chars` characters
 * (the batch cap, `MAX_QUERY_CHARS` in crates/catalog) and the one after them, which decides
 * where the cut falls, and says it cut (`queryTruncated`). A longer text is not copied there whole.
 * @param {string} query
 * @param {number} chars
 */
function searchedPart(query, chars) {
  // A character is at most two UTF-16 units.
  const units = 2 * (chars + 1)
  if (query.length <= units) return query
  const high = query.charCodeAt(units - 1)
  return query.slice(0, high >= 0xd800 && high <= 0xdbff ? units - 1 : units)
}

/**
 * One query's group of a batch `tool_search` answer.
 * @typedef {{ query: string, candidates: unknown[], queryTruncated?: unknown, truncated?: true }} BatchGroup
 */

/**
 * A batch answer within its budget: `budget` UTF-16 code units of `JSON.stringify` of the
 * answer (`{ results, truncated? }`, no indentation; what `.length` of that text is). Past it,
 * candidates go lowest-ranked first across the batch (the last rank of every group before the
 * one above it; on a tie, the later group's first), until it fits: the answer then has
 * `truncated: true`, and so has each group that lost candidates.
 * @param {BatchGroup[]} results
 * @param {number} budget
 * @returns {{ results: BatchGroup[], truncated?: true }}
 */
function fitBatch(results, budget) {
  /** @type {{ results: BatchGroup[], truncated?: true }} */
  const answer = { results }
  let length = JSON.stringify(answer).length
  if (length <= budget) return answer
  answer.truncated = true
  length += TRUNCATED_FIELD
  /** @type {Array<[number, number]>} rank, group */
  const order = []
  results.forEach((group, g) => group.candidates.forEach((_, rank) => order.push([rank, g])))
  order.sort((a, b) => b[0] - a[0] || b[1] - a[1])
  // The text's length is kept as a sum, each candidate measured once: `JSON.stringify` writes an
  // array's items as it writes each alone, and a comma between two.
  const sizes = results.map((group) => group.candidates.map((candidate) => JSON.stringify(candidate).length))
  for (const [, g] of order) {
    if (length <= budget) break
    const group = results[g]
    group.candidates.pop()
    length -= /** @type {number} */ (sizes[g].pop()) + (group.candidates.length > 0 ? 1 : 0)
    if (group.truncated !== true) {
      group.truncated = true
      length += TRUNCATED_FIELD
    }
  }
  return answer
}

/** What `truncated: true` adds to an object that has other fields before it: `,"truncated":true`. */
const TRUNCATED_FIELD = ',"truncated":true'.length

class ToolSearchRun {
  /** @type {CodeModeRunInstance} */
  #inner
  /** @type {import('../binding').NativeToolSearch} */
  #search
  /** @type {ToolSearchConfig} */
  #config
  /** @type {boolean} */
  #active
  /** @type {ToolSearchModelTool[]} */
  #modelTools
  /** @type {string} */
  #prompt
  /** @type {number} */
  #promptBytes
  /** @type {ToolSearchToolCall[]} */
  #toolCalls = []
  /**
   * Set by `abort()`. Search and describe are answered here, not by a cell of the inner run, so
   * its abort alone would not stop them: every kind of call checks this.
   */
  #aborted = false

  /**
   * Builds the run's catalog and model surface. Throws only on misuse (missing executor, tools
   * not an array, missing runId); everything else is a `failed` result of `call`.
   * @param {ToolSearchRunOptions} options
   * @returns {ToolSearchRun}
   */
  static create(options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('ToolSearchRun.create(options): options must be an object.')
    }
    if (typeof options.executor !== 'function') {
      throw new TypeError('ToolSearchRun.create(options): options.executor must be a function.')
    }
    if (!Array.isArray(options.tools)) {
      throw new TypeError('ToolSearchRun.create(options): options.tools must be an array.')
    }
    if (typeof options.runId !== 'string' || options.runId.length === 0) {
      throw new TypeError('ToolSearchRun.create(options): options.runId must be a non-empty string.')
    }
    return new ToolSearchRun(options)
  }

  /** @param {ToolSearchRunOptions} options */
  constructor(options) {
    const config = native.resolveToolSearchConfig(options.config)
    this.#config = config
    const codeMode = native.resolveCodeModeConfig(options.codeMode)
    const executor = options.executor
    const recorded = this.#toolCalls
    // Every call that reaches the executor is a final tool call of the run (telemetry).
    /** @param {NestedToolCall} call */
    const recording = (call) => {
      if (recorded.length >= MAX_RECORDED_CALLS) recorded.shift()
      recorded.push({
        id: call.id,
        source: call.source,
        sourceName: call.sourceName,
        toolCallId: call.toolCallId,
        parentToolCallId: call.parentToolCallId,
      })
      return executor(call)
    }
    this.#inner = CodeModeRun.create({
      runId: options.runId,
      sessionId: optionalString(options.sessionId),
      sessionKey: optionalString(options.sessionKey),
      agentId: optionalString(options.agentId),
      tools: options.tools,
      executor: recording,
      onEvent: options.onEvent,
      config: {
        enabled: true,
        languages: ['javascript'],
        timeoutMs: config.mode === 'code' ? config.codeTimeoutMs : STRUCTURED_LEG_MS,
        searchDefaultLimit: config.searchDefaultLimit,
        maxSearchLimit: config.maxSearchLimit,
      },
      [TOOL_SEARCH_GUEST]: true,
    })
    this.#search = new native.NativeToolSearch(nativeOf(this.#inner), config.mode)
    // Off when configured off, when the catalog is empty, or when code mode is engaged (it
    // takes precedence).
    this.#active = config.enabled && codeMode.enabled !== true && this.#inner.active
    this.#modelTools = this.#active ? this.#search.modelTools() : []
    // Every mode gives the model the bounded capability directory, as upstream does.
    this.#prompt = this.#active ? this.#search.directory() : ''
    this.#promptBytes = Buffer.byteLength(JSON.stringify(this.#modelTools)) + Buffer.byteLength(this.#prompt)
  }

  /** False: Tool Search off, no tools, or code mode engaged for this run. */
  get active() {
    return this.#active
  }

  /** `'code'`, `'tools'` or `'directory'`. */
  get mode() {
    return this.#config.mode
  }

  /** The resolved `tools.toolSearch` settings. */
  get config() {
    return { ...this.#config }
  }

  /** What the model sees: `[tool_search_code]`, or `[tool_search, tool_describe, tool_call]`. */
  get modelTools() {
    return this.#modelTools.map((tool) => ({ ...tool }))
  }

  /** The bounded capability directory for the system prompt (every mode; empty when inactive). */
  get prompt() {
    return this.#prompt
  }

  /**
   * Prompt size, catalog, counts and the tool calls executed.
   * @returns {ToolSearchTelemetry}
   */
  get telemetry() {
    const counters = this.#inner.telemetry
    return {
      mode: this.#config.mode,
      promptBytes: this.#promptBytes,
      modelToolCount: this.#modelTools.length,
      catalogSize: this.#search.catalogSize,
      sources: this.#search.sources,
      searchCount: counters.searchCount,
      describeCount: counters.describeCount,
      callCount: counters.callCount,
      toolCalls: this.#toolCalls.map((call) => ({ ...call })),
    }
  }

  /**
   * Runs one Tool Search tool. Resolves to a `ToolSearchResult`; never rejects.
   * @param {string} toolName
   * @param {unknown} input
   * @param {ToolSearchCallOptions} [options]
   * @returns {Promise<ToolSearchResult>}
   */
  async call(toolName, input, options) {
    try {
      return await this.#call(toolName, input, options)
    } catch (error) {
      // Only a bug can get here; still a result, never a rejection.
      return this.#failed('internal_error', `Tool Search failed: ${messageOf(error)}`, undefined, 'host')
    }
  }

  /** Cancels every running call of this run; later calls fail `aborted`. */
  abort() {
    this.#aborted = true
    this.#inner.abort()
  }

  /** @returns {ToolSearchFailed} */
  #abortedResult() {
    return this.#failed('aborted', 'Tool Search run was aborted.', undefined, 'host')
  }

  /**
   * @param {string} toolName
   * @param {unknown} input
   * @param {ToolSearchCallOptions | undefined} options
   * @returns {Promise<ToolSearchResult>}
   */
  async #call(toolName, input, options) {
    if (!this.#active) {
      return this.#failed('invalid_input', 'Tool Search is not active for this run.')
    }
    if (!this.#modelTools.some((tool) => tool.name === toolName)) {
      const names = this.#modelTools.map((tool) => tool.name).join(', ')
      return this.#failed('invalid_input', `Unknown Tool Search tool "${String(toolName)}"; this run exposes ${names}.`)
    }
    if (this.#aborted) return this.#abortedResult()
    const leg = { toolCallId: optionalString(options?.toolCallId), signal: options?.signal }
    if (leg.signal?.aborted === true) return this.#failed('aborted', 'The call was aborted before it started.', undefined, 'host')
    if (!isObject(input)) {
      return this.#failed('invalid_input', `${toolName} input must be an object, not ${typeName(input)}.`)
    }
    switch (toolName) {
      case 'tool_search_code':
        return this.#code(input, leg)
      case 'tool_search':
        return await this.#searchTool(input)
      case 'tool_describe':
        return this.#describe(input)
      default:
        return this.#toolCall(input, leg)
    }
  }

  /**
   * @param {ToolInput} input
   * @param {CodeModeLegOptions} leg
   * @returns {Promise<ToolSearchResult>}
   */
  async #code(input, leg) {
    const code = input.code
    if (typeof code !== 'string' || code.trim().length === 0) {
      return this.#failed('invalid_input', 'tool_search_code requires a non-empty code string.')
    }
    const result = await this.#inner.exec({ code, language: 'javascript' }, leg)
    if (result.status === 'waiting') {
      // No suspension: the wall clock ran out with calls pending. Drop the cell (which cancels
      // them) and fail.
      this.#search.dropParked(result.runId)
      return this.#failed(
        'timeout',
        `tool_search_code did not finish within ${this.#config.codeTimeoutMs} ms (codeTimeoutMs); its pending tool calls were cancelled.`,
        result.output,
        'guest',
      )
    }
    if (result.status === 'failed' && result.code === 'snapshot_limit_exceeded') {
      // The engine refused to park the cell at the deadline (too large to keep): still this
      // call's deadline, and the engine already dropped the cell and cancelled its calls.
      return this.#failed(
        'timeout',
        `tool_search_code did not finish within ${this.#config.codeTimeoutMs} ms (codeTimeoutMs); its pending tool calls were cancelled.`,
        result.output,
        'guest',
      )
    }
    return this.#result(result)
  }

  /**
   * `tool_search`: one query (`{ query, limit }`), a batch (`{ queries: [{ query, limit? }] }`),
   * or both, as OpenClaw's Tool Search page gives the rules (see `#plan`). Every query of the
   * call goes to the sandbox process in one request.
   * @param {ToolInput} input
   * @returns {Promise<ToolSearchResult>}
   */
  async #searchTool(input) {
    const plan = this.#plan(input)
    if (typeof plan === 'string') return this.#failed('invalid_input', plan)
    if (plan.searches.length === 0) return this.#completed([])
    let found
    try {
      // In the run's sandbox process: a query's cost is the model's to choose.
      found = await this.#search.search(plan.searches)
    } catch (error) {
      // The input was checked above: what fails now is the runtime (the run's sandbox process
      // ended, or the search could not run there).
      return this.#failed('runtime_unavailable', messageOf(error), undefined, 'host')
    }
    // Aborted while the query ran: its hits are no longer wanted.
    if (this.#aborted) return this.#abortedResult()
    if (!plan.batch) {
      const [one] = found
      // A query past the caps: its first part was searched, and the model is told so beside the hits.
      if (!one.queryTruncated) return this.#completed(one.hits)
      return { ...this.#completed(one.hits), queryTruncated: one.queryTruncated }
    }
    /** @type {BatchGroup[]} */
    const results = plan.searches.map(({ query }, i) => ({
      query,
      candidates: found[i].hits,
      ...(found[i].queryTruncated ? { queryTruncated: found[i].queryTruncated } : {}),
    }))
    return this.#completed(fitBatch(results, this.#search.batchLimits.responseChars))
  }

  /**
   * The searches of a `tool_search` call, or why it is refused (one message for the whole call).
   * A non-empty `query` runs first with the top-level `limit`, then each entry of `queries` in
   * order (repeats included). Beside a non-empty batch a missing, null or blank `query` is
   * ignored, and a non-null top-level `limit` is refused. `queries` missing, null, or `[]` with
   * a non-empty `query`, is the scalar shape: a blank `query` then finds nothing (no search
   * runs), a missing or null one is refused. A batch counts every search of the call (the scalar's
   * included) against its caps.
   * @param {ToolInput} input
   * @returns {string | { batch: boolean, searches: Array<{ query: string, limit?: number }> }}
   */
  #plan(input) {
    const { query, limit, queries } = input
    if (query !== undefined && query !== null && typeof query !== 'string') {
      return `tool_search requires a query string, not ${typeName(query)}.`
    }
    if (limit !== undefined && limit !== null && !isPositiveInteger(limit)) {
      return 'tool_search limit must be a positive integer.'
    }
    const scalar = typeof query === 'string' && query.trim().length > 0
    const topLimit = limit === null || limit === undefined ? {} : { limit: /** @type {number} */ (limit) }
    if (queries === undefined || queries === null || (Array.isArray(queries) && queries.length === 0 && scalar)) {
      if (typeof query !== 'string') return `tool_search requires a query string, not ${typeName(query)}.`
      // A blank query finds nothing (the page's rule; the sandbox answers any query without a word so,
      // unless a tool has exactly that name: Catalog::search_all_result in crates/catalog).
      return { batch: false, searches: scalar ? [{ query: searchedPart(query, this.#search.batchLimits.queryChars), ...topLimit }] : [] }
    }
    if (!Array.isArray(queries)) {
      return `tool_search queries must be an array of { query, limit? } objects, not ${typeName(queries)}.`
    }
    if (queries.length === 0) {
      return 'tool_search queries is empty and query is blank: give a query, or at least one entry in queries.'
    }
    const caps = this.#search.batchLimits
    if (!scalar && limit !== undefined && limit !== null) {
      return 'tool_search limit applies to query only: beside queries (and no query) omit it or set it to null, and give each entry of queries its own limit.'
    }
    const count = queries.length + (scalar ? 1 : 0)
    if (count > caps.queries) {
      return `tool_search takes at most ${caps.queries} queries in one call, not ${count}.`
    }
    /** @type {Array<{ query: string, limit?: number }>} */
    const searches = scalar ? [{ query: /** @type {string} */ (query), ...topLimit }] : []
    for (const [i, entry] of queries.entries()) {
      if (!isObject(entry)) return `tool_search queries[${i}] must be a { query, limit? } object, not ${typeName(entry)}.`
      if (typeof entry.query !== 'string' || entry.query.trim().length === 0) {
        return `tool_search queries[${i}].query must be a non-empty string, not ${typeof entry.query === 'string' ? 'a blank one' : typeName(entry.query)}.`
      }
      if (entry.limit !== undefined && entry.limit !== null && !isPositiveInteger(entry.limit)) {
        return `tool_search queries[${i}].limit must be a positive integer.`
      }
      searches.push({ query: entry.query, ...(entry.limit === undefined || entry.limit === null ? {} : { limit: /** @type {number} */ (entry.limit) }) })
    }
    const long = searches.findIndex((search) => search.query.length > caps.queryChars)
    if (long >= 0) {
      const which = scalar && long === 0 ? 'query' : `queries[${long - (scalar ? 1 : 0)}].query`
      return `tool_search ${which} has ${searches[long].query.length} characters; a query in a batch may have at most ${caps.queryChars}.`
    }
    const bytes = Buffer.byteLength(JSON.stringify(searches.map((search) => search.query)))
    if (bytes > caps.queryBytes) {
      return `tool_search queries are ${bytes} bytes of JSON together; a batch may have at most ${caps.queryBytes}.`
    }
    const { searchDefaultLimit, maxSearchLimit } = this.#config
    const total = searches.reduce((sum, search) => sum + Math.min(search.limit ?? searchDefaultLimit, maxSearchLimit), 0)
    if (total > caps.candidates) {
      return `tool_search queries ask for ${total} results in all (an omitted limit is searchDefaultLimit, ${searchDefaultLimit}); a batch may ask for at most ${caps.candidates}.`
    }
    return { batch: true, searches }
  }

  /**
   * @param {ToolInput} input
   * @returns {ToolSearchResult}
   */
  #describe(input) {
    if (typeof input.id !== 'string' || input.id.length === 0) {
      return this.#failed('invalid_input', 'tool_describe requires an id string.')
    }
    const entry = this.#search.describe(input.id)
    if (!entry) return this.#failed('invalid_input', this.#search.unavailable(input.id))
    return this.#completed(entry)
  }

  /**
   * @param {ToolInput} input
   * @param {CodeModeLegOptions} leg
   * @returns {Promise<ToolSearchResult>}
   */
  async #toolCall(input, leg) {
    const id = input.id
    if (typeof id !== 'string' || id.length === 0) {
      return this.#failed('invalid_input', 'tool_call requires an id string.')
    }
    const args = input.args ?? {}
    if (!isObject(args)) {
      return this.#failed('invalid_input', `tool_call args must be an object, not ${typeName(args)}.`)
    }
    // Fail closed: a tool no longer in the catalog is never guessed at.
    if (!this.#search.has(id)) return this.#failed('invalid_input', this.#search.unavailable(id))
    let argsJson
    try {
      argsJson = JSON.stringify(args)
    } catch (error) {
      return this.#failed('invalid_input', `tool_call args must be JSON-serialisable: ${messageOf(error)}`)
    }
    // What the tool receives is this text: a `toJSON` can make an object serialise to anything
    // (or to nothing), so the check is on the text, not on the value.
    if (argsJson === undefined || argsJson[0] !== '{') {
      return this.#failed('invalid_input', `tool_call args must serialise to a JSON object, not ${jsonTypeName(argsJson)}.`)
    }
    // The model's own input: over the cap it is refused here (invalid_input), in the words the
    // sandbox would refuse it with, not as a failure of the cell that makes the call.
    const refusal = this.#search.inputRefusal(argsJson)
    if (refusal) return this.#failed('invalid_input', refusal)
    // One nested call in a cell: code mode's executor path, events and cancellation. The call
    // is data, exactly as the model made it (never spliced into source), and the outcome comes
    // back as data so an executor refusal is reported verbatim.
    // Structured calls have no deadline of their own: a call that outlives a leg is followed.
    const legs = await followWaits(
      () => execCall(this.#inner, id, /** @type {string} */ (argsJson), leg),
      (runId) => this.#inner.wait({ runId }, leg),
    )
    const result = /** @type {Exclude<CodeModeResult, { status: 'waiting' }>} */ (legs[legs.length - 1])
    if (result.status !== 'completed') return this.#result(result)
    // What the cell's one call settled to (crates/sandbox: `{ ok, value }` or `{ ok: false, error }`).
    const outcome = /** @type {{ ok?: unknown, value?: unknown, error?: unknown } | null} */ (result.value)
    if (outcome === null || typeof outcome !== 'object' || outcome.ok !== true) {
      // The executor's failure (the tool threw, or refused the call).
      return this.#failed('internal_error', String(outcome?.error ?? 'tool call failed'), result.output, 'bridge')
    }
    const tool = this.#search.entry(id) ?? { id }
    return this.#completed({ tool, result: outcome.value }, result.output)
  }

  /**
   * A code-mode result with Tool Search's telemetry.
   * @param {Exclude<CodeModeResult, { status: 'waiting' }>} result
   * @returns {ToolSearchResult}
   */
  #result(result) {
    const { telemetry: _codeMode, ...rest } = result
    return { ...rest, telemetry: this.telemetry }
  }

  /**
   * @param {unknown} value
   * @param {CodeModeOutput[]} [output]
   * @returns {ToolSearchCompleted}
   */
  #completed(value, output) {
    return { status: 'completed', value, ...(output?.length ? { output } : {}), telemetry: this.telemetry }
  }

  /**
   * @param {CodeModeErrorCode} code
   * @param {string} error
   * @param {CodeModeOutput[]} [output]
   * @param {import('../index').CodeModeFailurePhase} [failurePhase] where it failed: the model's input unless said
   * @returns {ToolSearchFailed}
   */
  #failed(code, error, output, failurePhase = 'input') {
    return { status: 'failed', code, error, failurePhase, ...(output?.length ? { output } : {}), telemetry: this.telemetry }
  }
}

/**
 * Wraps a Tool Search run's model tools as OpenClaw agent tools (like createCodeModeAgentTools).
 * @param {import('../index').ToolSearchRun} run
 * @returns {ToolSearchAgentTool[]}
 */
function createToolSearchAgentTools(run) {
  if (!(run instanceof ToolSearchRun)) {
    throw new TypeError('createToolSearchAgentTools(run): run must be a ToolSearchRun.')
  }
  return run.modelTools.map((definition) => ({
    name: definition.name,
    label: definition.label,
    description: definition.description,
    parameters: definition.parameters,
    toolKind: 'tool_search',
    /** Hook metadata for one call: which Tool Search operation, and the target of tool_call. */
    hookMetadata(params) {
      /** @type {ReturnType<ToolSearchAgentTool['hookMetadata']>} */
      const meta = { toolKind: 'tool_search', toolSearchOperation: definition.name }
      const id = /** @type {{ id?: unknown } | null | undefined} */ (params)?.id
      if (definition.name === 'tool_call' && typeof id === 'string') meta.targetToolId = id
      if (definition.name === 'tool_search_code') meta.toolInputKind = 'javascript'
      return meta
    },
    async execute(toolCallId, params, signal) {
      const result = await run.call(definition.name, params, { toolCallId, signal })
      return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], details: result }
    },
  }))
}

module.exports = { ToolSearchRun, createToolSearchAgentTools }
