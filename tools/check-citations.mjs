#!/usr/bin/env node
// Fails when a comment or a document cites a file the repository does not have. It reads the
// comments of every tracked source file (Rust, JS/TS, shell, TOML, YAML), every Markdown file
// (less its code blocks other than shell commands) and the headers of vendor/patches/, and:
// - each repository path there (one that starts at a top-level folder: `crates/frontend/src/guard.rs`,
//   `vendor/patches/rquickjs-sys/0010-*.patch`, `src/sandbox/`) must name a tracked file or folder;
// - nothing may cite the documents kept outside the repository this project was started from (the
//   shared work folder, its `reference` pages, its design notes).
// Upstream code under vendor/ and test262's data are not read (vendor/README.md, the VENDORED.md
// files and the patch headers are).
//
//   node tools/check-citations.mjs      prints each bad citation as file:line and exits 1 if any
//
// A path resolves against the repository root or the citing file's package (the nearest folder
// above it with a Cargo.toml or package.json, so that `src/lib.rs` in crates/engine/ is
// crates/engine/src/lib.rs); a glob must match a tracked path; a path under a git-ignored folder
// (target/, node_modules/, tools/node24/..., test262's generated tests) is made by a build and is
// not checked.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, posix } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Top-level folders: a path that starts with one of them is a citation of a repository file. */
const ROOTS = ['src', 'crates', 'lib', '__test__', 'bench', 'tools', 'docs', 'examples', 'fuzz', 'vendor', 'npm', 'bin', 'test262', '.ci', '.github']

// Not inside a longer path, a URL or an identifier; runs over path characters and globs.
const PATH = new RegExp(String.raw`(?<![\w@.$/\\-])(?:\./)?((?:${ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/[\w.*{},/-]*)`, 'g')

/** Citations of documents outside the repository, whatever their form. */
const OUTSIDE = [
  [/\/work\/shared\b/, 'the shared work folder is not in the repository'],
  [/(?<![\w.-])\.\.\/shared\b/, 'the shared work folder is not in the repository'],
  [/(?<![\w/.-])reference\/[\w.-]/, 'the reference folder is not in the repository'],
  [/\bDESIGN\.md\b/, 'DESIGN.md is not in the repository'],
  [/\b(?:[Tt]he reference's|in the reference)\b/, '"the reference" is not in the repository: cite a file that is'],
]

const SLASH_COMMENTS = /\.(rs|[cm]?js|[cm]?ts|c|h)$/
const HASH_COMMENTS = /(\.(sh|toml|ya?ml)|^\.ci\/run|(^|\/)\.gitignore)$/

/** The text of `file` that is comment or prose, line by line ('' for code), or null to skip it. */
export function proseLines(file, text) {
  if (file.startsWith('test262/')) return null
  if (file.startsWith('vendor/')) {
    const ours = file === 'vendor/README.md' || /^vendor\/[^/]+\/VENDORED\.md$/.test(file) || /^vendor\/patches\/.*\.patch$/.test(file)
    if (!ours) return null
  }
  if (text.includes('\0')) return null
  const lines = text.split('\n')
  if (file.endsWith('.patch')) {
    // The header: what comes before the diff.
    const end = lines.findIndex((l) => /^(diff |--- )/.test(l))
    return lines.map((l, i) => (end < 0 || i < end ? l : ''))
  }
  if (file.endsWith('.md')) {
    let fence = null
    return lines.map((l) => {
      const m = /^\s*(```+|~~~+)\s*(\w*)/.exec(l)
      if (m && fence === null) {
        fence = m[2] === 'sh' || m[2] === 'bash' ? 'sh' : 'code'
        return ''
      }
      if (m && fence !== null) {
        fence = null
        return ''
      }
      if (fence === 'code') return ''
      return l
    })
  }
  if (SLASH_COMMENTS.test(file)) return slashComments(lines, file.endsWith('.rs'))
  if (HASH_COMMENTS.test(file)) {
    return lines.map((l) => {
      const m = /(^|\s)#(?!!)/.exec(l)
      return m ? l.slice(m.index + m[0].length) : ''
    })
  }
  return null
}

/**
 * The line and block comments of C-like source, line by line, skipping string literals: `"…"`
 * (which may span lines in Rust), and in JS `'…'` and template literals (which may span lines).
 * In Rust `'` starts a lifetime or a char, never a string.
 */
function slashComments(lines, rust) {
  let state = 'code' // or 'block', or the quote character of the open string
  return lines.map((line) => {
    let out = ''
    for (let i = 0; i < line.length; i++) {
      const c = line[i]
      const next = line[i + 1]
      if (state === 'block') {
        if (c === '*' && next === '/') {
          state = 'code'
          i++
        } else out += c
      } else if (state === 'code') {
        if (c === '/' && next === '/') return out + line.slice(i + 2)
        if (c === '/' && next === '*') {
          state = 'block'
          i++
        } else if (rust && c === "'") {
          // A char literal ('"', '\'', 'x') is skipped whole; a lifetime has no closing quote.
          if (next === '\\') i = line.indexOf("'", i + 3)
          else if (line[i + 2] === "'") i += 2
          if (i < 0) return out
        } else if (c === '"' || (!rust && (c === "'" || c === '`'))) state = c
      } else if (c === '\\') i++
      else if (c === state) state = 'code'
    }
    // A JS quote does not outlive its line.
    if (state === "'" || (state === '"' && !rust)) state = 'code'
    return out
  })
}

function expandBraces(path) {
  const m = /\{([^{}]*)\}/.exec(path)
  if (!m) return [path]
  return m[1].split(',').flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length)))
}

function globRegExp(glob) {
  const body = glob
    .split(/(\*\*\/|\*)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^$()|[\]\\]/g, '\\$&')))
    .join('')
  return new RegExp(`^${body}$`)
}

/**
 * The bad citations in `files` (paths relative to `root`, as `git ls-files` prints them), as
 * { file, line, cited, why }, sorted. `read(file)` gives a file's text (the file under `root` by
 * default); `ignored(paths)` gives the set of those paths git ignores.
 */
export function findBadCitations({ root, files, read = (f) => readFileSync(join(root, f), 'utf8'), ignored = gitIgnored(root) }) {
  const tracked = new Set(files)
  const dirs = new Set()
  for (const f of files) for (let d = posix.dirname(f); d !== '.'; d = posix.dirname(d)) dirs.add(d)
  const packages = files.filter((f) => /(^|\/)(Cargo\.toml|package\.json)$/.test(f)).map((f) => posix.dirname(f))
  const exists = (p) => {
    if (p.includes('*')) {
      const re = globRegExp(p)
      return files.some((f) => re.test(f)) || [...dirs].some((d) => re.test(d))
    }
    return tracked.has(p) || dirs.has(p)
  }
  const packageOf = (file) => packages.filter((p) => p === '.' || file.startsWith(`${p}/`)).reduce((a, b) => (b.length > a.length ? b : a), '.')

  const bad = []
  const unresolved = []
  for (const file of files) {
    let text
    try {
      text = read(file)
    } catch {
      continue // a tracked file deleted in the work tree
    }
    const lines = proseLines(file, text)
    if (!lines) continue
    const bases = [...new Set(['.', packageOf(file)])]
    lines.forEach((line, i) => {
      if (!line) return
      const at = { file, line: i + 1 }
      for (const [re, why] of OUTSIDE) {
        const m = re.exec(line)
        if (m) bad.push({ ...at, cited: m[0], why })
      }
      for (const m of line.matchAll(PATH)) {
        const cited = m[1].replace(/[.,}-]+$/, '')
        const paths = expandBraces(cited.replace(/\/+$/, '')).flatMap((c) => bases.map((base) => posix.join(base, c)))
        if (!paths.some(exists)) unresolved.push({ ...at, cited, paths })
      }
    })
  }
  const stem = (p) => p.replace(/\*.*$/, '').replace(/\/$/, '')
  const isIgnored = ignored(unresolved.flatMap((u) => u.paths.map(stem)))
  for (const u of unresolved) {
    if (u.paths.some((p) => isIgnored.has(stem(p)))) continue
    bad.push({ file: u.file, line: u.line, cited: u.cited, why: 'no such file or folder in the repository' })
  }
  return bad.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

function gitIgnored(root) {
  return (paths) => {
    const unique = [...new Set(paths.filter(Boolean))]
    if (unique.length === 0) return new Set()
    try {
      const out = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: root, input: unique.join('\n'), encoding: 'utf8' })
      return new Set(out.split('\n').filter(Boolean))
    } catch (e) {
      if (e.status === 1) return new Set() // none is ignored
      throw e
    }
  }
}

/** The files of the repository at `root`: tracked or new, not ignored, and present. */
export function trackedFiles(root) {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && existsSync(join(root, f)))
}

if (process.argv[1] && normalize(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const bad = findBadCitations({ root, files: trackedFiles(root) })
  for (const b of bad) console.error(`${b.file}:${b.line}: ${b.cited}: ${b.why}`)
  if (bad.length > 0) {
    console.error(`check-citations: ${bad.length} citation(s) of what the repository does not have`)
    process.exit(1)
  }
  console.log('check-citations: every cited path is in the repository')
}
