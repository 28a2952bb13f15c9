// @ts-check
'use strict'
// A run's exec and wait as OpenClaw agent tools.

const { CodeModeRun } = require('./run.js')
const { callHost, ignore } = require('./host-callback.js')

/** @typedef {import('../index').CodeModeResult} CodeModeResult */
/** @typedef {import('../index').OpenClawAgentTool} OpenClawAgentTool */

// Pretty-printing indents every line by its depth, so a deeply nested value of a few kilobytes
// (within maxOutputBytes) would become megabytes of model content. Indented only when shallow
// and small enough that the indentation stays a fraction of the text.
const PRETTY_MAX_CHARS = 1 << 20
const PRETTY_MAX_DEPTH = 16

/**
 * Deepest nesting of arrays and objects in JSON text.
 * @param {string} json
 */
function nesting(json) {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) deepest = Math.max(deepest, ++depth)
    else if (c === 125 || c === 93) depth--
  }
  return deepest
}

/**
 * The result as the model reads it: indented JSON, or compact when indenting would bloat it.
 * @param {CodeModeResult} result
 */
function modelText(result) {
  const compact = JSON.stringify(result)
  if (compact.length > PRETTY_MAX_CHARS || nesting(compact) > PRETTY_MAX_DEPTH) return compact
  const pretty = JSON.stringify(result, null, 2)
  return pretty.length <= 2 * compact.length + 4096 ? pretty : compact
}

/**
 * Wraps a run's exec and wait as OpenClaw agent tools (drop-in for the gateway's tool list).
 * @param {import('../index').CodeModeRun} run
 * @returns {OpenClawAgentTool[]}
 */
function createCodeModeAgentTools(run) {
  if (!(run instanceof CodeModeRun)) {
    throw new TypeError('createCodeModeAgentTools(run): run must be a CodeModeRun.')
  }
  return run.modelTools.map((definition) => {
    const isExec = definition.name === 'exec'
    return {
      name: definition.name,
      label: definition.label,
      description: definition.description,
      parameters: definition.parameters,
      toolKind: isExec ? /** @type {const} */ ('code_mode_exec') : /** @type {const} */ ('code_mode_wait'),
      /** Hook metadata for one call: lets policies tell a code cell from a shell `exec`. */
      hookMetadata(params) {
        if (!isExec) return { toolKind: 'code_mode_wait' }
        const language = /** @type {{ language?: unknown } | null | undefined} */ (params)?.language === 'typescript' ? 'typescript' : 'javascript'
        return { toolKind: 'code_mode_exec', toolInputKind: language }
      },
      async execute(toolCallId, params, signal, onUpdate) {
        // The model's raw arguments, as the run takes them: it checks them (bad ones are a failed result).
        const input = /** @type {import('../index').CodeModeExecInput & import('../index').CodeModeWaitInput} */ (params)
        const result = await run[definition.name](input, { toolCallId, signal })
        if (typeof onUpdate === 'function' && result.status === 'waiting') {
          // The gateway's progress hook: its throw or rejection does not change the result.
          callHost(() => onUpdate({ content: [{ type: 'text', text: `waiting: ${result.runId}` }], details: result }), ignore)
        }
        return { content: [{ type: 'text', text: modelText(result) }], details: result }
      },
    }
  })
}

module.exports = { createCodeModeAgentTools }
