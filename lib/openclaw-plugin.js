'use strict'
// The OpenClaw plugin entry (package.json `openclaw.extensions`). The plugin registers nothing at
// start-up: its one contribution is the `quickjs` code-mode executor, which the gateway loads
// from code-mode-executor-api.js when configuration selects it.

module.exports = {
  id: 'code-mode-native',
  name: 'Native Code Mode',
  description:
    'Hardened JavaScript execution for Code Mode: QuickJS compiled natively, on worker threads, with parked VMs as continuations.',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  register() {},
}
