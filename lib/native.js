// @ts-check
'use strict'
// The native addon, and where its sandbox executable is: `code-mode-sandbox` next to the
// `.node` file that loaded (in the package root for a source build, in the platform package
// otherwise). Every file of this package reaches the addon through here.

const path = require('node:path')
const binding = require('../binding.js')

const EXECUTABLE = process.platform === 'win32' ? 'code-mode-sandbox.exe' : 'code-mode-sandbox'

/** The directory of the `.node` file whose exports are `binding`, from Node's module cache. */
function addonDirectory() {
  for (const entry of Object.values(require.cache)) {
    if (entry && entry.exports === binding && typeof entry.filename === 'string' && entry.filename.endsWith('.node')) {
      return path.dirname(entry.filename)
    }
  }
  return undefined
}

const directory = addonDirectory()
if (directory !== undefined && typeof binding.setSandboxExecutable === 'function') {
  binding.setSandboxExecutable(path.join(directory, EXECUTABLE))
}

module.exports = binding
