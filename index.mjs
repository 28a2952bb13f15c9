// ES module entry of @openclaw/code-mode: the CommonJS entry (index.js) with every export named,
// so `import { CodeModeRun } from '@openclaw/code-mode'` works whatever Node's CommonJS export
// detection makes of index.js. __test__/esm.spec.ts checks this list against index.js's exports.
import codeMode from './index.js'

export const {
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
} = codeMode

export default codeMode
