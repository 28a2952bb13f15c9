// @ts-check
'use strict'
// The public surface of @openclaw/code-mode: this export table. Everything that can live in Rust
// does; lib/ holds what must touch JavaScript values: the run and its exec/wait promises and
// AbortSignals (run.js), the executor's side of a nested call (nested-call.js), namespace
// callbacks (namespaces.js), the agent-tool adapter (agent-tools.js), Tool Search (tool-search.js), and the wire format to
// the native side (generated/protocol.js). The table is checked against index.d.ts, the
// declared API (`npm run typecheck`).

const native = require('./lib/native.js')
const { CodeModeRun } = require('./lib/run.js')
const { createCodeModeAgentTools } = require('./lib/agent-tools.js')
const { ToolSearchRun, createToolSearchAgentTools } = require('./lib/tool-search.js')
const {
  registerCodeModeNamespaceForPlugin,
  createCodeModeNamespaceTool,
  clearCodeModeNamespacesForPlugin,
  unregisterCodeModeNamespace,
  clearCodeModeNamespacesForTest,
} = require('./lib/namespaces.js')

// Bound to names first: ESM importers get named exports only for the plain identifiers of the
// table below (Node's cjs-module-lexer does not read `name: native.name`).
const resolveCodeModeConfig = native.resolveCodeModeConfig
const configureCodeModeRuntime = native.configureCodeModeRuntime
const assertCodeModePayload = native.assertCodeModePayload
const resolveToolSearchConfig = native.resolveToolSearchConfig

module.exports = {
  CodeModeRun,
  createCodeModeAgentTools,
  registerCodeModeNamespaceForPlugin,
  createCodeModeNamespaceTool,
  clearCodeModeNamespacesForPlugin,
  unregisterCodeModeNamespace,
  clearCodeModeNamespacesForTest,
  resolveCodeModeConfig,
  configureCodeModeRuntime,
  assertCodeModePayload,
  ToolSearchRun,
  createToolSearchAgentTools,
  resolveToolSearchConfig,
}

// The table is the API index.d.ts declares (checked by `npm run typecheck`; no runtime effect).
/** @type {typeof import('./index.d.ts')} */
const _declared = module.exports
