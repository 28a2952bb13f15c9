// @ts-check
'use strict'
// The native addon, and where its sandbox executable is: `code-mode-sandbox` next to the
// `.node` file that loaded (in the package root for a source build, in the platform package
// otherwise). Every file of this package reaches the addon through here.

const fs = require('node:fs')
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
/** Where the sandbox executable must be: next to the addon (undefined when that is unknown). */
const sandboxExecutable = directory === undefined ? undefined : path.join(directory, EXECUTABLE)
if (sandboxExecutable !== undefined && typeof binding.setSandboxExecutable === 'function') {
  binding.setSandboxExecutable(sandboxExecutable)
}

/**
 * Why no cell can run although the addon loaded, or undefined: its sandbox executable is not
 * beside it (a platform package installed without it, or a source build whose executable was
 * removed). `OPENCLAW_CODE_MODE_SANDBOX` names another executable.
 * @returns {string | undefined}
 */
function sandboxProblem() {
  const chosen = process.env.OPENCLAW_CODE_MODE_SANDBOX || sandboxExecutable
  if (chosen === undefined || fs.existsSync(chosen)) return undefined
  return `its sandbox executable (${EXECUTABLE}) is missing beside its native binary; reinstall the package`
}

module.exports = binding
module.exports.sandboxProblem = sandboxProblem
