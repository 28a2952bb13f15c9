// @ts-check
'use strict'
// The OpenClaw plugin entry (package.json `openclaw.extensions`). The plugin registers nothing at
// start-up: its one contribution is the `quickjs` code-mode executor, which the gateway loads
// from code-mode-executor-api.js when configuration selects it.

const { loadAddon } = require('./addon.js')

module.exports = {
  id: 'code-mode-native',
  name: 'Native Code Mode',
  description:
    'Hardened JavaScript execution for Code Mode: QuickJS compiled natively, in supervised sandbox processes, with parked VMs as continuations.',
  configSchema: { type: 'object', additionalProperties: false, properties: {} },
  register() {
    // Without this platform's native binary no cell can run. OpenClaw records a throw here as
    // the plugin's diagnostic, once per load (`openclaw plugins inspect`, `openclaw doctor`);
    // the executor still fails each cell with the same short message (lib/addon.js).
    const { error } = loadAddon()
    if (error) throw new Error(error)
  },
}
