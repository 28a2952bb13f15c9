#!/usr/bin/env node
// `npm run package [-- --out <dir>] [-- --artifacts <dir>]`: writes into one folder (default
// dist/) the tarballs publishing would publish for the binaries built here: the main package
// and one platform package per built `code-mode.<platform>.node`. It packages whatever binary is
// built: `npm run build` first gives a release binary, `npm run build:debug` a debug one.
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
// --artifacts <dir>  where the built .node files are (default: the package root, where
//                    `napi build` writes them; the release workflow downloads them elsewhere)
// --out <dir>        the output folder, emptied first (default: dist)

import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(join(root, 'package.json'))
const { parseTriple } = await import('@napi-rs/cli')

function parseArgs(argv) {
  const options = { out: join(root, 'dist'), artifacts: root }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if ((arg === '--out' || arg === '--artifacts') && i + 1 < argv.length) options[arg.slice(2)] = resolve(argv[++i])
    else throw new Error(`unknown argument ${arg} (expected --out <dir> and/or --artifacts <dir>)`)
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

function main() {
  const options = parseArgs(process.argv.slice(2))
  const pkg = readJson(join(root, 'package.json'))
  const binaryName = pkg.napi.binaryName
  const targets = pkg.napi.targets.map((triple) => ({ triple, platform: parseTriple(triple).platformArchABI }))

  // Every target's platform package exists under npm/ with the name and version publishing gives it.
  for (const { platform } of targets) {
    const manifest = join(root, 'npm', platform, 'package.json')
    if (!existsSync(manifest)) throw new Error(`${relative(root, manifest)} is missing (npx napi create-npm-dirs creates it)`)
    const { name, version } = readJson(manifest)
    if (name !== `${pkg.name}-${platform}`) throw new Error(`${relative(root, manifest)}: name ${name}, expected ${pkg.name}-${platform}`)
    if (version !== pkg.version) throw new Error(`${relative(root, manifest)}: version ${version}, package.json has ${pkg.version} (npx napi version syncs them)`)
  }

  const built = targets.filter(({ platform }) => existsSync(join(options.artifacts, `${binaryName}.${platform}.node`)))
  if (built.length === 0) {
    throw new Error(`no ${binaryName}.<platform>.node in ${options.artifacts}: build one first (npm run build gives a release binary, npm run build:debug a debug one)`)
  }

  const work = mkdtempSync(join(tmpdir(), 'code-mode-package-'))
  try {
    // The staged main package: what npm pack would take from the work tree, and the platform
    // packages of the built targets.
    const stage = join(work, 'package')
    for (const file of packFiles(root)) {
      mkdirSync(dirname(join(stage, file)), { recursive: true })
      copyFileSync(join(root, file), join(stage, file))
    }
    for (const { platform } of built) cpSync(join(root, 'npm', platform), join(stage, 'npm', platform), { recursive: true, filter: (src) => !src.endsWith('.node') })

    // The binaries, as the release workflow downloads them: one folder holding only them.
    const artifacts = join(work, 'artifacts')
    mkdirSync(artifacts)
    for (const { platform } of built) {
      const file = `${binaryName}.${platform}.node`
      try {
        linkSync(join(options.artifacts, file), join(artifacts, file))
      } catch {
        copyFileSync(join(options.artifacts, file), join(artifacts, file))
      }
    }
    const config = join(work, 'napi.json')
    writeJson(config, { targets: built.map(({ triple }) => triple) })

    napi('artifacts', '--cwd', stage, '--config-path', config, '--output-dir', artifacts, '--npm-dir', 'npm')
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

    rmSync(options.out, { recursive: true, force: true })
    mkdirSync(options.out, { recursive: true })
    const tarballs = [pack(stage, options.out), ...built.map(({ platform }) => pack(join(stage, 'npm', platform), options.out))]
    for (const tarball of tarballs) console.log(join(relative(process.cwd(), options.out) || '.', tarball))
    const unbuilt = targets.filter((t) => !built.includes(t)).map(({ triple }) => triple)
    if (unbuilt.length > 0) console.log(`not built here (no platform tarball): ${unbuilt.join(', ')}`)
    if (readdirSync(options.out).length !== tarballs.length) throw new Error(`${options.out} holds files other than the tarballs`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

try {
  main()
} catch (error) {
  console.error(`package: ${error.message}`)
  process.exitCode = 1
}
