'use strict'
// A run's exec and wait as OpenClaw agent tools.

const { CodeModeRun } = require('./run.js')

/** Wraps a run's exec and wait as OpenClaw agent tools (drop-in for the gateway's tool list). */
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
      toolKind: isExec ? 'code_mode_exec' : 'code_mode_wait',
      /** Hook metadata for one call: lets policies tell a code cell from a shell `exec`. */
      hookMetadata(params) {
        if (!isExec) return { toolKind: 'code_mode_wait' }
        const language = params?.language === 'typescript' ? 'typescript' : 'javascript'
        return { toolKind: 'code_mode_exec', toolInputKind: language }
      },
      async execute(toolCallId, params, signal, onUpdate) {
        const result = await run[definition.name](params, { toolCallId, signal })
        if (typeof onUpdate === 'function' && result.status === 'waiting') {
          try {
            onUpdate({ content: [{ type: 'text', text: `waiting: ${result.runId}` }], details: result })
          } catch {}
        }
        return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], details: result }
      },
    }
  })
}

module.exports = { createCodeModeAgentTools }
