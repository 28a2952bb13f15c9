'use strict'
// The bench's floor plugin (bench/lib/openclaw-inside.mjs): registers nothing; its executor is
// code-mode-executor-api.js.
module.exports = {
  id: 'code-mode-floor',
  name: 'Code mode floor (bench only)',
  description: 'Answers every cell with 2 without running it.',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  register() {},
}
