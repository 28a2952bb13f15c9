'use strict'
// The floor: an executor that runs nothing and answers at once, so that the "inside OpenClaw"
// bench can set each executor's trivial exec beside what the gateway's own exec path costs.
const codeModeExecutor = {
  id: 'quickjs',
  async execute() {
    // The value and output as the gateway's capture helpers shape them (docs/executor-contract.md).
    return { status: 'completed', value: { kind: 'complete', json: '2' }, output: { count: 0, source: { kind: 'complete', json: '[]' } } }
  },
}

module.exports = { codeModeExecutor }
