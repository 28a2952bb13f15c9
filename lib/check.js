// @ts-check
'use strict'
// `code-mode check <cell>`: type-checks one cell the way it runs (the body of an async function:
// top-level await and return are fine), at the cell's own lines and columns, against
//  - this library's guest API (guest.d.ts), every `tools.<name>` of the run typed from its
//    parameters, and the MCP declaration files the runtime renders (`await API.read("mcp/…")`);
//  - or, with --openclaw, the API OpenClaw's gateway gives cells (guest-openclaw.d.ts) and the
//    declarations the gateway itself hands the executor: results.d.ts, mcp/*.d.ts and one
//    tools/<name>.d.ts per tool global.
// Needs `typescript` (an optional peer dependency): 5.x and 6.x through the compiler API, 7.x
// through its typescript/unstable/sync API.

const { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, realpathSync } = require('node:fs')
const { createRequire } = require('node:module')
const { tmpdir } = require('node:os')
const { dirname, join, resolve } = require('node:path')
const { pathToFileURL } = require('node:url')

/**
 * A diagnostic as a checker reports it, before cell positions.
 * @typedef {{ fileName?: string, start?: number, text?: string, category: string, code: number, message: string }} RawDiagnostic
 */
/**
 * A diagnostic of `checkCell`: at the cell's own `line`/`column` (with its `source` line), or
 * in a declaration `file`.
 * @typedef {{ category: string, code: number, message: string, file?: string, line?: number, column?: number, source?: string }} Diagnostic
 */
/**
 * A TypeScript that `checkCell` drives ({@link loadTypeScript}).
 * @typedef {{ version: string, api: string, check(rootNames: string[], tempDir: string): RawDiagnostic[], dir: string }} Checker
 */
/**
 * TypeScript 7's typescript/unstable/sync, the parts used here (it ships no types this package
 * can name: the module is loaded from the user's install).
 * @typedef {{ text: string, messageChain?: SyncDiagnostic[], fileName?: string, pos?: number, category: number, code: number }} SyncDiagnostic
 * @typedef {{ getConfigFileParsingDiagnostics(): SyncDiagnostic[], getProgramDiagnostics(): SyncDiagnostic[], getSyntacticDiagnostics(): SyncDiagnostic[], getGlobalDiagnostics(): SyncDiagnostic[], getSemanticDiagnostics(): SyncDiagnostic[] }} SyncProgram
 * @typedef {{ API: new (options: { cwd: string }) => { updateSnapshot(options: { openProjects: string[] }): { getProject(config: string): { program: SyncProgram } | undefined }, close(): void } }} SyncModule
 */
/**
 * A JSON Schema as a tool gives it: any JSON, read defensively (hence `any`).
 * @typedef {any} JsonSchema
 */
/** @typedef {{ name: string, description?: string, parameters?: JsonSchema }} Shortcut */

const GUEST_TYPES = resolve(__dirname, '..', 'guest.d.ts')
const GUEST_OPENCLAW_TYPES = resolve(__dirname, '..', 'guest-openclaw.d.ts')
/** In guest.d.ts: the line check replaces with the run's own tools. */
const TOOLS_DECLARATION = 'declare const tools: ToolCatalog\n'
/** In guest-openclaw.d.ts: where its `results` section starts (the gateway's results.d.ts replaces it). */
const RESULTS_SECTION = '// --- results ---'

// The cell starts on the wrapper's second line, so wrapper line n (0-based) is cell line n.
const WRAP_HEAD = 'async function __codeModeCell() {\n'
const WRAP_TAIL = '\n}\nexport {}\n'

/** The TypeScript majors check drives, and how (package.json's peer range says the same). */
const SUPPORTED_TYPESCRIPT = '>=5.0.0 <8'
const SUPPORTED_TEXT = 'TypeScript 5.x and 6.x (the compiler API) and 7.x (typescript/unstable/sync)'

const TYPESCRIPT_MISSING =
  'check needs the "typescript" package, an optional peer dependency of @openclaw/code-mode.\n' +
  'Install it next to your cells: npm install --save-dev typescript\n'

class TypeScriptUnavailable extends Error {}

const CATEGORIES = ['warning', 'error', 'suggestion', 'message']

/**
 * TypeScript 5.x/6.x: `createProgram` and `getPreEmitDiagnostics`.
 * @param {typeof import('typescript')} ts
 * @param {string} dir
 * @returns {Checker}
 */
function compilerApi(ts, dir) {
  return {
    version: ts.version,
    api: 'compiler',
    check(rootNames) {
      const program = ts.createProgram({
        rootNames,
        options: {
          lib: ['lib.es2023.d.ts'],
          types: [],
          strict: true,
          noEmit: true,
          allowJs: true,
          checkJs: true,
          skipLibCheck: false,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          moduleResolution: ts.ModuleResolutionKind.Bundler,
        },
      })
      return ts.getPreEmitDiagnostics(program).map((d) => ({
        fileName: d.file?.fileName,
        start: d.start,
        text: d.file?.text,
        category: CATEGORIES[d.category] ?? 'error',
        code: d.code,
        message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      }))
    },
    dir,
  }
}

/**
 * TypeScript 7.x: the sync API over its native compiler, on a tsconfig.json in the check's temp dir.
 * @param {string} version
 * @param {SyncModule} mod
 * @param {string} dir
 * @returns {Checker}
 */
function syncApi(version, mod, dir) {
  /** @type {(d: SyncDiagnostic, indent?: string) => string} */
  const flatten = (d, indent = '') =>
    [indent + d.text, ...(d.messageChain ?? []).map((c) => flatten(c, `${indent}  `))].join('\n')
  return {
    version,
    api: 'unstable/sync',
    check(rootNames, tempDir) {
      const config = join(tempDir, 'tsconfig.json')
      writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: {
            lib: ['es2023'],
            types: [],
            strict: true,
            noEmit: true,
            allowJs: true,
            checkJs: true,
            skipLibCheck: false,
            target: 'es2022',
            module: 'esnext',
            moduleResolution: 'bundler',
          },
          files: rootNames,
        }),
      )
      const api = new mod.API({ cwd: tempDir })
      try {
        const project = api.updateSnapshot({ openProjects: [config] }).getProject(config)
        if (!project) throw new Error(`TypeScript ${version} opened no project for ${config}`)
        const program = project.program
        return [
          ...program.getConfigFileParsingDiagnostics(),
          ...program.getProgramDiagnostics(),
          ...program.getSyntacticDiagnostics(),
          ...program.getGlobalDiagnostics(),
          ...program.getSemanticDiagnostics(),
        ].map((d) => ({
          fileName: d.fileName,
          start: d.pos,
          category: CATEGORIES[d.category] ?? 'error',
          code: d.code,
          message: flatten(d),
        }))
      } finally {
        api.close()
      }
    },
    dir,
  }
}

/**
 * The `typescript` of the user's project (cwd), else the one next to this package, as a checker
 * `{ version, api, check(rootNames, tempDir) }`; null when neither has it. Throws
 * TypeScriptUnavailable (a message naming the supported versions) for one it cannot drive.
 * @returns {Promise<Checker | null>}
 */
async function loadTypeScript(cwd = process.cwd()) {
  for (const base of [join(cwd, 'package.json'), __filename]) {
    let pkgFile
    try {
      pkgFile = createRequire(base).resolve('typescript/package.json')
    } catch {
      continue
    }
    const dir = dirname(realpathSync(pkgFile))
    const version = String(JSON.parse(readFileSync(pkgFile, 'utf8')).version)
    const major = parseInt(version, 10)
    /** @param {string} [why] */
    const unsupported = (why) =>
      new TypeScriptUnavailable(
        `check supports ${SUPPORTED_TEXT}; found TypeScript ${version} in ${dir}${why ? ` (${why})` : ''}. Install a supported one: npm install --save-dev typescript@latest`,
      )
    if (major >= 5 && major < 7) {
      const ts = createRequire(pkgFile)('typescript')
      if (typeof ts.createProgram !== 'function') throw unsupported('it has no createProgram')
      return compilerApi(ts, dir)
    }
    if (major === 7) {
      let mod
      try {
        mod = await import(pathToFileURL(createRequire(pkgFile).resolve('typescript/unstable/sync')).href)
      } catch (error) {
        throw unsupported(`its typescript/unstable/sync API did not load: ${String(/** @type {Error} */ (error)?.message).split('\n')[0]}`)
      }
      if (typeof mod.API !== 'function') throw unsupported('typescript/unstable/sync has no API class')
      return syncApi(version, /** @type {SyncModule} */ (mod), dir)
    }
    throw unsupported()
  }
  return null
}

/**
 * Identifier-safe form of a tool name, as the runtime makes `tools.<name>` (crates/catalog/src/names.rs).
 * @param {unknown} name
 */
function safeName(name) {
  let out = String(name).replace(/[^A-Za-z0-9_$]/gu, '_')
  if (out === '' || /^[0-9]/.test(out)) out = `_${out}`
  return out
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * A TypeScript type for a JSON Schema: what the schema pins down, `unknown` for the rest.
 * @param {JsonSchema} schema
 * @param {number} [depth]
 * @returns {string}
 */
function schemaType(schema, depth = 0) {
  if (schema === true || schema === undefined) return 'unknown'
  if (schema === false) return 'never'
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || depth > 8) return 'unknown'
  /** @param {unknown} v */
  const literal = (v) => (v === null || ['string', 'number', 'boolean'].includes(typeof v) ? JSON.stringify(v) : 'unknown')
  if (Object.hasOwn(schema, 'const')) return literal(schema.const)
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return [...new Set(schema.enum.map(literal))].join(' | ')
  for (const key of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[key]) && schema[key].length > 0) {
      return [...new Set(schema[key].map((/** @type {JsonSchema} */ s) => paren(schemaType(s, depth + 1))))].join(' | ')
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return schema.allOf.map((/** @type {JsonSchema} */ s) => paren(schemaType(s, depth + 1))).join(' & ')
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]
  if (types.length > 1) return types.map((/** @type {unknown} */ type) => paren(schemaType({ ...schema, type }, depth + 1))).join(' | ')
  const type = types[0] ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined)
  switch (type) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array':
      return schema.items && !Array.isArray(schema.items) ? `Array<${schemaType(schema.items, depth + 1)}>` : 'unknown[]'
    case 'object': {
      const required = new Set(Array.isArray(schema.required) ? schema.required : [])
      const members = Object.entries(schema.properties ?? {}).map(([key, value]) => {
        const name = IDENTIFIER.test(key) ? key : JSON.stringify(key)
        return `${name}${required.has(key) ? '' : '?'}: ${schemaType(value, depth + 1)}`
      })
      const extra = schema.additionalProperties
      if (extra !== false) {
        members.push(`[key: string]: ${members.length === 0 && extra && typeof extra === 'object' ? schemaType(extra, depth + 1) : 'unknown'}`)
      }
      return `{ ${members.join('; ')} }`
    }
    default:
      return 'unknown'
  }
}

/** @param {string} type */
function paren(type) {
  return /[|&]/.test(type) && !/^\{.*\}$/.test(type) ? `(${type})` : type
}

/**
 * True when `{}` is a valid input (no required property): the argument may be left out.
 * @param {JsonSchema} schema
 */
function inputOptional(schema) {
  if (!schema || typeof schema !== 'object') return true
  return !(Array.isArray(schema.required) && schema.required.length > 0)
}

/** @param {unknown} text */
const docComment = (text) => {
  const lines = String(text ?? '').replace(/\*\//g, '*\\/').split('\n').filter((l) => l.trim() !== '')
  return lines.length === 0 ? '' : `  /**\n${lines.map((l) => `   * ${l}`).join('\n')}\n   */\n`
}

/**
 * The `tools.d.ts` of a run: one typed member per `tools.<name>` shortcut.
 * @param {Shortcut[]} shortcuts
 */
function toolsDeclaration(shortcuts) {
  const members = shortcuts.map(({ name, description, parameters }) => {
    const input = parameters === undefined ? 'unknown' : schemaType(parameters)
    return `${docComment(description)}  ${name}<T = any>(input${inputOptional(parameters) ? '?' : ''}: ${input}): Promise<T>`
  })
  return `/** The run's tools.<name> shortcuts, typed from their parameters. */\ninterface CodeModeRunTools {\n${members.join('\n')}\n}\n`
}

/**
 * The declaration files of a CodeModeRun over `tools`: the MCP files the runtime renders
 * (`{ "mcp/index.d.ts": text, ... }`, read by a cell through API.list/API.read as a model's cell
 * would) and `tools.d.ts`, each `tools.<name>` shortcut of the run typed from its parameters.
 * @param {import('../index').CatalogTool[]} tools
 * @param {Record<string, unknown>} [config]
 * @returns {Promise<{ files: Record<string, string>, shortcuts: Shortcut[] }>}
 */
async function renderedDeclarations(tools, config) {
  const { CodeModeRun } = require('../index.js')
  const run = CodeModeRun.create({
    config: { ...config, maxOutputBytes: 10 << 20, enabled: true },
    runId: `check-${process.pid}`,
    tools,
    executor: () => {
      throw new Error('code-mode check calls no tools')
    },
  })
  if (!run.active) return { files: {}, shortcuts: [] }
  try {
    const result = await run.exec({
      code: `const files = {}
for (const f of await API.list("mcp")) files[f.path] = await API.read(f.path)
const described = []
for (const t of ALL_TOOLS) described.push(await tools.describe(t.id))
return { files, keys: Object.keys(tools), described }`,
    })
    if (result.status !== 'completed') throw new Error(`could not read the run's declarations: ${result.status === 'failed' ? result.error : result.status}`)
    // What the cell above returns.
    const { files, keys, described } = /** @type {{ files: Record<string, string>, keys: string[], described: Shortcut[] }} */ (result.value)
    /** @type {Map<string, Shortcut | null>} */
    const bySafe = new Map()
    for (const entry of described) {
      const name = safeName(entry.name)
      bySafe.set(name, bySafe.has(name) ? null : entry)
    }
    const shortcuts = keys.flatMap((k) => {
      const entry = ['search', 'describe', 'call'].includes(k) ? undefined : bySafe.get(k)
      return entry ? [{ name: k, description: entry.description, parameters: entry.parameters }] : []
    })
    return { files, shortcuts }
  } finally {
    run.abort()
  }
}

/**
 * The declaration files the OpenClaw gateway gives a run's cells, read through the gateway as a
 * model's cell reads them (`API.list()`, `API.read(path)`): `{ "results.d.ts": text,
 * "mcp/<server>.d.ts": text, "tools/<name>.d.ts": text, ... }`. `gateway` is a
 * lib/openclaw-gateway.js createGateway() result.
 * @param {{ exec: import('./openclaw-gateway.js').AgentTool }} gateway
 * @returns {Promise<Record<string, string>>}
 */
async function openclawDeclarations(gateway) {
  let n = 0
  /**
   * @param {string} code
   * @returns {Promise<any>} the cell's value (what `code` returns)
   */
  const exec = async (code) => {
    const d = (await gateway.exec.execute(`check_${++n}`, { code })).details
    if (d?.status !== 'completed') throw new Error(`could not read the gateway's declarations: ${d?.code ?? d?.status}: ${String(d?.error ?? '').split('\n')[0]}`)
    return d.value
  }
  const paths = await exec('return (await API.list()).files.map((f) => f.path).filter((p) => p.endsWith(".d.ts"))')
  /** @type {Record<string, string>} */
  const files = {}
  /** @param {string[]} batch */
  const read = async (batch) => {
    const value = await exec(`const out = {}\nfor (const p of ${JSON.stringify(batch)}) out[p] = (await API.read(p)).content\nreturn out`)
    const complete = batch.every((p) => typeof value?.[p] === 'string')
    if (complete) Object.assign(files, value)
    return complete
  }
  for (let i = 0; i < paths.length; i += 20) {
    const batch = paths.slice(i, i + 20)
    // A batch too large for one result comes back as a reference: read its files one by one.
    if (await read(batch)) continue
    for (const p of batch) if (!(await read([p]))) throw new Error(`the gateway's ${p} is too large to read in one cell`)
  }
  return files
}

/**
 * 1-based line and column of UTF-16 offset `offset` in `text`.
 * @param {string} text
 * @param {number} offset
 */
function lineColumn(text, offset) {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 }
}

/**
 * Type-checks `code` (a cell) with `checker` (from loadTypeScript). `declarations` (path ->
 * text) are checked with it; `guest` is 'library' (guest.d.ts, `tools` typed by `tools.d.ts`
 * when given) or 'openclaw' (guest-openclaw.d.ts, with the gateway's results.d.ts when given).
 * Returns the diagnostics with cell positions (1-based `line`/`column`) for the cell's own, and
 * `file` set for any in a declaration file.
 * @param {Checker} checker
 * @param {string} code
 * @param {{ language?: 'javascript' | 'typescript', declarations?: Record<string, string>, guest?: 'library' | 'openclaw' }} [options]
 * @returns {Diagnostic[]}
 */
function checkCell(checker, code, { language = 'typescript', declarations = {}, guest = 'library' } = {}) {
  // Real path: compilers report files by it (a symlinked tmpdir would not match).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'code-mode-check-')))
  try {
    /** @type {Map<string, { path: string, text: string }>} */
    const written = new Map()
    /**
     * @param {string} path
     * @param {string} text
     */
    const write = (path, text) => {
      const file = join(dir, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, text)
      written.set(resolve(file), { path, text })
      return file
    }
    let guestText
    if (guest === 'openclaw') {
      guestText = readFileSync(GUEST_OPENCLAW_TYPES, 'utf8')
      const cut = guestText.indexOf(RESULTS_SECTION)
      if (cut < 0) throw new Error(`guest-openclaw.d.ts has no "${RESULTS_SECTION}" line`)
      if (Object.hasOwn(declarations, 'results.d.ts')) guestText = guestText.slice(0, cut)
    } else {
      guestText = readFileSync(GUEST_TYPES, 'utf8')
      if (!guestText.includes(TOOLS_DECLARATION)) throw new Error(`guest.d.ts has no "${TOOLS_DECLARATION.trim()}" line`)
      // The run's own tools replace the catch-all `tools.<any name>`: a misspelt tool is an error.
      const typed = Object.hasOwn(declarations, 'tools.d.ts') ? 'ToolCatalogHelpers & CodeModeRunTools' : 'ToolCatalogHelpers'
      guestText = guestText.replace(TOOLS_DECLARATION, `declare const tools: ${typed}\n`)
    }
    const guestFile = write(guest === 'openclaw' ? 'guest-openclaw.d.ts' : 'guest.d.ts', guestText)
    const declarationFiles = Object.entries(declarations).map(([path, text]) => write(path, text))
    const cellText = WRAP_HEAD + code + WRAP_TAIL
    const cellFile = write(language === 'javascript' ? 'cell.js' : 'cell.ts', cellText)
    const cellLines = code.split('\n')
    return checker.check([guestFile, ...declarationFiles, cellFile], dir).map(({ fileName, start, text, ...entry }) => {
      if (!fileName || start === undefined) return entry
      const known = written.get(resolve(fileName))
      const source = known?.text ?? text
      if (source === undefined) return { ...entry, file: fileName }
      const at = lineColumn(source, start)
      if (known?.path === (language === 'javascript' ? 'cell.js' : 'cell.ts')) {
        // Wrapper line 1 is the function head and the last lines its tail: clamp into the cell.
        const line = Math.min(Math.max(at.line - 1, 1), cellLines.length)
        const column = at.line - 1 === line ? at.column : 1
        return { ...entry, line, column, source: cellLines[line - 1] }
      }
      return { ...entry, file: known ? known.path : fileName, line: at.line, column: at.column }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * tsc-style text: `cell.ts:3:15 - error TS2345: …`, the cell line and a caret under the column.
 * @param {string} cellName
 * @param {Diagnostic[]} diagnostics
 */
function formatDiagnostics(cellName, diagnostics) {
  const lines = []
  for (const d of diagnostics) {
    const where = d.line === undefined ? d.file ?? cellName : `${d.file ?? cellName}:${d.line}:${d.column}`
    lines.push(`${where} - ${d.category} TS${d.code}: ${d.message}`)
    if (d.source !== undefined) {
      const gutter = String(d.line)
      lines.push('', `${gutter} ${d.source}`, `${' '.repeat(gutter.length)} ${d.source.slice(0, (d.column ?? 1) - 1).replace(/[^\t]/g, ' ')}^`, '')
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : ''
}

module.exports = {
  checkCell,
  formatDiagnostics,
  loadTypeScript,
  renderedDeclarations,
  openclawDeclarations,
  toolsDeclaration,
  schemaType,
  safeName,
  TypeScriptUnavailable,
  TYPESCRIPT_MISSING,
  SUPPORTED_TYPESCRIPT,
  GUEST_TYPES,
  GUEST_OPENCLAW_TYPES,
}
