// @ts-check
'use strict'
// The native addon for the OpenClaw plugin's entry points (lib/openclaw-plugin.js,
// lib/openclaw-executor.js), which must not throw while OpenClaw loads them: when this
// platform's binary is missing, the loader's error (binding.js, napi-rs's: npm advice, every
// path it tried) would reach the model as the text of every failed cell. Here a failed load
// becomes one short message that names the package to install and holds no file paths.

/** @type {{ name: string, optionalDependencies?: Record<string, string> }} */
const pkg = require('../package.json')

/** This platform as the binary packages name it (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`). */
function platformName() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform === 'linux') {
    let glibc = true
    try {
      // A report's header has no type in @types/node.
      const report = /** @type {{ header?: { glibcVersionRuntime?: string } } | undefined} */ (process.report?.getReport?.())
      glibc = Boolean(report?.header?.glibcVersionRuntime)
    } catch {}
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  return `${platform}-${arch}`
}

/** The binary package this platform needs. */
const binaryPackage = () => `${pkg.name}-${platformName()}`

/**
 * Every message of a load error and its cause chain (napi-rs chains one per place it looked).
 * @param {unknown} error
 */
function messages(error) {
  /** @type {string[]} */
  const out = []
  for (let e = /** @type {any} */ (error), depth = 0; e && depth < 32; e = e.cause, depth++) {
    out.push(typeof e?.message === 'string' ? e.message : String(e))
  }
  return out
}

/**
 * `text` with every file path cut to its last part (a dynamic linker names the files it read).
 * @param {string} text
 */
const withoutPaths = (text) =>
  text.replace(/(?:[A-Za-z]:|[\w@.~-]+)?(?:[\\/][^\\/\s'"`()]+)+[\\/]?/g, (/** @type {string} */ path) => path.split(/[\\/]/).filter(Boolean).pop() ?? '')

/**
 * What to tell the model and the operator when the addon did not load: that the binary package
 * is not installed (every place napi-rs looked had nothing), or why it did not load (the first
 * other failure, on one line, without paths).
 * @param {unknown} error
 */
function missingAddonMessage(error) {
  const all = messages(error)
  // napi-rs's own summary ("Cannot find native binding. npm has a bug…") says nothing more.
  if (/^Cannot find native binding\b/.test(all[0])) all.shift()
  const failure = all.find((m) => !/^Cannot find (?:module|package)\b/.test(m) && !/^WASI binding\b/.test(m))
  const platform = platformName()
  const wanted = binaryPackage()
  if (failure) {
    return `${pkg.name} cannot run cells: its native binary for ${platform} (${wanted}) did not load: ${withoutPaths(failure.split('\n')[0]).slice(0, 300)}`
  }
  // A published main package lists every binary package as an optional dependency.
  const published = pkg.optionalDependencies && Object.keys(pkg.optionalDependencies)
  if (published && !published.includes(wanted)) {
    return `${pkg.name} cannot run cells: no native binary is published for ${platform} (there is no ${wanted}); build the package from source.`
  }
  return (
    `${pkg.name} cannot run cells: its native binary for ${platform} is not installed (the package ${wanted}). ` +
    'Reinstall so that npm installs it, or install the self-contained tarball for this platform.'
  )
}

/** @type {{ native: typeof import('./native.js') } | undefined} */
let loaded
/**
 * The addon (binding.js's exports), or `{ error }`: the short message of missingAddonMessage.
 * A failed load is not kept: the next call tries again (the package may be installed since).
 * @returns {{ native: typeof import('./native.js'), error?: undefined } | { native?: undefined, error: string }}
 */
function loadAddon() {
  if (loaded) return loaded
  let native
  try {
    native = require('./native.js')
  } catch (error) {
    return { error: missingAddonMessage(error) }
  }
  // The addon runs every cell in its sandbox executable: without it, say so now (the plugin's
  // diagnostic) rather than in the first cell's failure.
  const problem = native.sandboxProblem()
  if (problem) return { error: `${pkg.name} cannot run cells: ${problem} (${binaryPackage()}).` }
  loaded = { native }
  return loaded
}

module.exports = { loadAddon, missingAddonMessage, binaryPackage, platformName }
