// @ts-check
'use strict'
// OpenClaw's code-mode executor seam: the gateway loads this file with a synchronous require()
// when `tools.codeMode.executor` is "quickjs" and this plugin owns that choice
// (openclaw.plugin.json). It must stay free of top-level await.
const { codeModeExecutor } = require('./lib/openclaw-executor.js')

module.exports = { codeModeExecutor }
