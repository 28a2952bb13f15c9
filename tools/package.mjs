#!/usr/bin/env node
// `npm run package [-- --out <dir>] [-- --artifacts <dir>]`: writes into one folder (default
// dist/) the tarballs publishing would publish for the binaries built here (the main package,
// and one platform package per built `code-mode.<platform>.node`), and for each built platform
// a self-contained tarball: the main package with that platform's binary inside, which installs
// with no registry (`openclaw plugins install npm-pack:<file>`, or `npm install <file>`).
//
// It packs only a release build: a binary with debug info or test exports (`npm run build:debug`,
// or the `testing` feature's `__test*` exports) is refused (tools/binaries.mjs), and so is the
// sandbox executable beside it. `npm run build` gives a release binary.
//
// The steps are the publish job's (.github/workflows/release.yml), on a staged copy so the work
// tree is left alone: `napi artifacts` puts each binary into its npm/<platform> package,
// `napi pre-publish -t npm --skip-optional-publish --no-gh-release` checks those packages, syncs
// their versions and writes the main package's optionalDependencies (publishing nothing), and
// `npm pack` packs each package. pre-publish only sees the targets built here; the
// optionalDependencies of the other napi.targets are added by the same rule
// (`<name>-<platform>`: version), as pre-publish writes them in the release workflow where every
// target is built.
//
// --artifacts <dir>      where the built files are: `code-mode.<platform>.node`, and the sandbox
//                        executable (`code-mode-sandbox`, `.exe` on Windows) in the same folder.
//                        Default: the package root, where `npm run build` writes them. A given
//                        folder may also hold one folder per platform (as the release workflow
//                        downloads its artifacts).
// --out <dir>            the output folder (default dist). It may only hold earlier tarballs of
//                        this package, which are replaced; anything else there is left alone and
//                        the command refuses to run.
// --allow-testing-build  packs a build with the `testing` feature (its debug info must still be
//                        stripped). For this repository's tests only: never publish such a tarball.

import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packingProblems, sandboxFileName } from './binaries.mjs'

/**
 * Whether every platform's sandbox executable must be there beside its addon: the addon runs
 * every cell in it, so a platform tarball without it could not run one.
 */
export const SANDBOX_REQUIRED = true

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'package.json'))
const { parseTriple } = await import('@napi-rs/cli')

function parseArgs(argv) {
  const options = { out: join(root, 'dist'), artifacts: root, artifactsGiven: false, allowTesting: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if ((arg === '--out' || arg === '--artifacts') && i + 1 < argv.length) {
      options[arg.slice(2)] = resolve(argv[++i])
      if (arg === '--artifacts') options.artifactsGiven = true
    } else if (arg === '--allow-testing-build') options.allowTesting = true
    else throw new Error(`unknown argument ${arg} (expected --out <dir>, --artifacts <dir>, --allow-testing-build)`)
  }
  return options
}

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'))
const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)

function napi(...args) {
  const cliPackage = require.resolve('@napi-rs/cli/package.json')
  const bin = join(dirname(cliPackage), readJson(cliPackage).bin.napi)
  execFileSync(process.execPath, [bin, ...args], { stdio: ['ignore', 'inherit', 'inherit'] })
}

/** Runs npm (the one running this script when started by `npm run`); returns its stdout. */
function npm(args, cwd) {
  const execPath = process.env.npm_execpath
  const [command, commandArgs] = execPath && /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args]
  return execFileSync(command, commandArgs, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: command === 'npm' && process.platform === 'win32' })
}

/** The files `npm pack` puts in the package at `dir` (package.json, README and LICENSE included). */
function packFiles(dir) {
  const [report] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], dir))
  return report.files.map((file) => file.path)
}

/** Packs `dir` into `out`; returns the tarball's file name. */
function pack(dir, out) {
  const [report] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', out], dir))
  return report.filename
}

function linkOrCopy(from, to) {
  try {
    linkSync(from, to)
  } catch {
    copyFileSync(from, to)
  }
}

/** The file name prefix of every tarball of the package `name` (`@openclaw/code-mode` → `openclaw-code-mode`). */
export const tarballPrefix = (name) => name.replace(/^@/, '').replace('/', '-')

/** The self-contained tarball's file name for a platform. */
export const selfContainedTarball = (name, version, platform) => `${tarballPrefix(name)}-${version}-self-contained-${platform}.tgz`

/**
 * Checks the output folder: it may be missing, empty, or hold earlier tarballs of this package
 * (returned, to be replaced); anything else is refused, since the folder is not ours.
 */
function earlierTarballs(out, prefix) {
  if (!existsSync(out)) return []
  if (!statSync(out).isDirectory()) throw new Error(`--out ${out} is not a folder`)
  const entries = readdirSync(out)
  const ours = entries.filter((f) => f.startsWith(`${prefix}-`) && f.endsWith('.tgz') && statSync(join(out, f)).isFile())
  const others = entries.filter((f) => !ours.includes(f))
  if (others.length > 0) {
    throw new Error(
      `${out} holds files that are not tarballs of this package (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}); ` +
        'give --out an empty or new folder (nothing was written or removed)',
    )
  }
  return ours
}

/** The built addon of each platform, and the sandbox executable beside it (when there is one). */
function findBuilt(targets, binaryName, options) {
  // The artifacts folder itself, and (when given) the folders in it: the release workflow
  // downloads each platform's files into a folder of its own. The package root's folders
  // (target/, npm/, node_modules/) are not searched: the testing build lives in target/.
  const folders = [options.artifacts]
  if (options.artifactsGiven) {
    for (const entry of readdirSync(options.artifacts, { withFileTypes: true })) {
      if (entry.isDirectory()) folders.push(join(options.artifacts, entry.name))
    }
  }
  const built = []
  for (const target of targets) {
    const file = `${binaryName}.${target.platform}.node`
    const found = folders.filter((folder) => existsSync(join(folder, file)))
    if (found.length > 1) throw new Error(`${file} is in more than one folder: ${found.map((f) => relative(root, f) || '.').join(', ')}`)
    if (found.length === 0) continue
    const sandbox = join(found[0], sandboxFileName(target.platform))
    built.push({ ...target, folder: found[0], binary: join(found[0], file), sandbox: existsSync(sandbox) ? sandbox : undefined })
  }
  // One sandbox executable cannot belong to two platforms' addons in one folder.
  for (const a of built) {
    const other = built.find((b) => b !== a && a.sandbox && b.sandbox === a.sandbox)
    if (other) throw new Error(`${relative(root, a.sandbox)} sits beside the addons of ${a.platform} and ${other.platform}: give each platform's files a folder of its own`)
  }
  return built
}

function main() {
  const options = parseArgs(process.argv.slice(2))
  const pkg = readJson(join(root, 'package.json'))
  const binaryName = pkg.napi.binaryName
  const prefix = tarballPrefix(pkg.name)
  const targets = pkg.napi.targets.map((triple) => ({ triple, platform: parseTriple(triple).platformArchABI }))

  // Every target's platform package exists under npm/ with the name and version publishing gives
  // it, and packs the addon (and the sandbox executable, once every build has one: napi
  // pre-publish refuses a package without a file its "files" names).
  for (const { platform } of targets) {
    const manifest = join(root, 'npm', platform, 'package.json')
    if (!existsSync(manifest)) throw new Error(`${relative(root, manifest)} is missing (npx napi create-npm-dirs creates it)`)
    const { name, version, files = [] } = readJson(manifest)
    if (name !== `${pkg.name}-${platform}`) throw new Error(`${relative(root, manifest)}: name ${name}, expected ${pkg.name}-${platform}`)
    if (version !== pkg.version) throw new Error(`${relative(root, manifest)}: version ${version}, package.json has ${pkg.version} (npx napi version syncs them)`)
    for (const file of [`${binaryName}.${platform}.node`, ...(SANDBOX_REQUIRED ? [sandboxFileName(platform)] : [])]) {
      if (!files.includes(file)) throw new Error(`${relative(root, manifest)}: "files" lacks ${file}`)
    }
  }

  const replaced = earlierTarballs(options.out, prefix)

  const built = findBuilt(targets, binaryName, options)
  if (built.length === 0) {
    throw new Error(`no ${binaryName}.<platform>.node in ${options.artifacts}: build one first (npm run build gives a release binary)`)
  }
  const problems = []
  for (const b of built) {
    if (!b.sandbox && SANDBOX_REQUIRED) problems.push(`${relative(process.cwd(), b.folder) || '.'} has no ${sandboxFileName(b.platform)} beside ${relative(b.folder, b.binary)}`)
    for (const file of [b.binary, b.sandbox].filter(Boolean)) {
      for (const problem of packingProblems(file, { allowTesting: options.allowTesting })) problems.push(`${relative(process.cwd(), file)}: ${problem}`)
    }
  }
  if (problems.length > 0) {
    throw new Error(`refusing to pack:\n  ${problems.join('\n  ')}\nnpm run build gives a release build (npm test's testing build stays in target/testing and is never packed)`)
  }

  const work = mkdtempSync(join(tmpdir(), 'code-mode-package-'))
  try {
    // The staged main package: what npm pack would take from the work tree, and the platform
    // packages of the built targets.
    const stage = join(work, 'package')
    const mainFiles = packFiles(root)
    for (const file of mainFiles) {
      mkdirSync(dirname(join(stage, file)), { recursive: true })
      copyFileSync(join(root, file), join(stage, file))
    }
    for (const { platform } of built) cpSync(join(root, 'npm', platform), join(stage, 'npm', platform), { recursive: true, filter: (src) => !src.endsWith('.node') })

    // The addons, as the release workflow downloads them: one folder holding only them.
    const artifacts = join(work, 'artifacts')
    mkdirSync(artifacts)
    for (const b of built) linkOrCopy(b.binary, join(artifacts, `${binaryName}.${b.platform}.node`))
    const config = join(work, 'napi.json')
    writeJson(config, { targets: built.map(({ triple }) => triple) })

    napi('artifacts', '--cwd', stage, '--config-path', config, '--output-dir', artifacts, '--npm-dir', 'npm')
    // napi artifacts moves only the .node files; the sandbox executable goes beside each, and
    // into the package's "files" until npm/<platform>/package.json names it (SANDBOX_REQUIRED).
    for (const b of built.filter((b) => b.sandbox)) {
      const name = sandboxFileName(b.platform)
      copyFileSync(b.sandbox, join(stage, 'npm', b.platform, name))
      const manifest = join(stage, 'npm', b.platform, 'package.json')
      const platformPackage = readJson(manifest)
      if (!platformPackage.files.includes(name)) writeJson(manifest, { ...platformPackage, files: [...platformPackage.files, name] })
    }
    napi('pre-publish', '--cwd', stage, '--config-path', config, '--npm-dir', 'npm', '--tagstyle', 'npm', '--skip-optional-publish', '--no-gh-release')

    const manifest = readJson(join(stage, 'package.json'))
    const optionalDependencies = Object.fromEntries(targets.map(({ platform }) => [`${pkg.name}-${platform}`, pkg.version]))
    for (const [name, version] of Object.entries(manifest.optionalDependencies ?? {})) {
      if (optionalDependencies[name] !== version) throw new Error(`napi pre-publish wrote optional dependency ${name}@${version}, expected one of ${JSON.stringify(optionalDependencies)}`)
    }
    for (const { platform } of built) {
      if (!manifest.optionalDependencies?.[`${pkg.name}-${platform}`]) throw new Error(`napi pre-publish did not add ${pkg.name}-${platform}`)
    }
    manifest.optionalDependencies = optionalDependencies
    writeJson(join(stage, 'package.json'), manifest)

    // Each self-contained package: the main package with the platform's files at its root,
    // where binding.js looks first, no optional dependencies (nothing to fetch), and the
    // platform package's os/cpu/libc, so npm refuses it on another platform.
    const selfContained = []
    for (const b of built) {
      const dir = join(work, `self-contained-${b.platform}`)
      for (const file of mainFiles) {
        mkdirSync(dirname(join(dir, file)), { recursive: true })
        copyFileSync(join(stage, file), join(dir, file))
      }
      const files = [`${binaryName}.${b.platform}.node`, ...(b.sandbox ? [sandboxFileName(b.platform)] : [])]
      for (const file of files) linkOrCopy(join(stage, 'npm', b.platform, file), join(dir, file))
      const platformManifest = readJson(join(stage, 'npm', b.platform, 'package.json'))
      const { optionalDependencies: _, ...rest } = manifest
      const own = { ...rest, files: [...rest.files, ...files] }
      for (const key of ['os', 'cpu', 'libc']) if (platformManifest[key]) own[key] = platformManifest[key]
      writeJson(join(dir, 'package.json'), own)
      selfContained.push({ dir, platform: b.platform })
    }

    mkdirSync(options.out, { recursive: true })
    for (const file of replaced) rmSync(join(options.out, file))
    const shown = (file) => join(relative(process.cwd(), options.out) || '.', file)
    console.log(`${shown(pack(stage, options.out))}  (the main package: npm installs the binary from its platform package)`)
    for (const { platform } of built) console.log(`${shown(pack(join(stage, 'npm', platform), options.out))}  (the ${platform} platform package)`)
    for (const { dir, platform } of selfContained) {
      // npm names it as the main package's tarball: packed aside, then moved in under its own name.
      const file = selfContainedTarball(pkg.name, pkg.version, platform)
      renameSync(join(dir, '..', pack(dir, join(dir, '..'))), join(options.out, file))
      console.log(`${shown(file)}  (self-contained, ${platform}: openclaw plugins install npm-pack:<file>, or npm install <file>)`)
    }
    const unbuilt = targets.filter((t) => !built.some((b) => b.triple === t.triple)).map(({ triple }) => triple)
    if (unbuilt.length > 0) console.log(`not built here (no platform tarball): ${unbuilt.join(', ')}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main()
  } catch (error) {
    console.error(`package: ${error.message}`)
    process.exitCode = 1
  }
}
