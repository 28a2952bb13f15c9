'use strict'
// `code-mode check <cell>`: type-checks one cell the way the runtime runs it (the body of an async
// function: top-level await and return are fine) against guest.d.ts and the MCP declaration files
// the runtime renders for the run's tools (`await API.read("mcp/<server>.d.ts")` in a cell).
// Diagnostics are reported at the cell's own lines and columns. Needs `typescript` (an optional
// peer dependency of this package).

const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { dirname, join, resolve } = require('node:path')
const { CodeModeRun } = require('../index.js')

const GUEST_TYPES = resolve(__dirname, '..', 'guest.d.ts')

// The cell starts on the wrapper's second line, so wrapper line n (0-based) is cell line n.
const WRAP_HEAD = 'async function __codeModeCell() {\n'
const WRAP_TAIL = '\n}\nexport {}\n'

const TYPESCRIPT_MISSING =
  'check needs the "typescript" package, an optional peer dependency of @openclaw/code-mode.\n' +
  'Install it next to your cells: npm install --save-dev typescript\n'

/** The `typescript` module of the user's project (cwd), else the one next to this package; null when neither has it. */
function loadTypeScript(cwd = process.cwd()) {
  for (const base of [cwd, __dirname]) {
    let path
    try {
      path = require.resolve('typescript', { paths: [base] })
    } catch {
      continue
    }
    const ts = require(path)
    if (typeof ts.createProgram === 'function') return ts
  }
  return null
}

/**
 * The MCP declaration files the runtime renders for `tools` (`{ "mcp/index.d.ts": text, ... }`),
 * read by a cell through API.list/API.read as a model's cell would. Empty without MCP tools.
 */
async function renderedDeclarations(tools, config) {
  const run = CodeModeRun.create({
    config: { ...(config ?? {}), enabled: true },
    runId: `check-${process.pid}`,
    tools,
    executor: () => {
      throw new Error('code-mode check calls no tools')
    },
  })
  if (!run.active) return {}
  try {
    const result = await run.exec({
      code: 'const out = {}; for (const f of await API.list("mcp")) out[f.path] = await API.read(f.path); return out',
    })
    if (result.status !== 'completed') throw new Error(`could not read the MCP declarations: ${result.error ?? result.status}`)
    return result.value
  } finally {
    run.abort()
  }
}

function compilerOptions(ts) {
  return {
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
  }
}

/**
 * Type-checks `code` (a cell) against guest.d.ts and `declarations` (path -> text, from
 * renderedDeclarations). Returns the diagnostics with cell positions (1-based `line`/`column`)
 * for the cell's own, and `file` set for any in a declaration file.
 */
function checkCell(ts, code, { language = 'typescript', declarations = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'code-mode-check-'))
  try {
    const cellFile = join(dir, language === 'javascript' ? 'cell.js' : 'cell.ts')
    writeFileSync(cellFile, WRAP_HEAD + code + WRAP_TAIL)
    const declarationFiles = Object.entries(declarations).map(([path, text]) => {
      const file = join(dir, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, text)
      return { file, path }
    })
    const program = ts.createProgram({
      rootNames: [GUEST_TYPES, ...declarationFiles.map((d) => d.file), cellFile],
      options: compilerOptions(ts),
    })
    const cellLines = code.split('\n')
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const entry = {
        category: ts.DiagnosticCategory[diagnostic.category].toLowerCase(),
        code: diagnostic.code,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      }
      if (!diagnostic.file || diagnostic.start === undefined) return entry
      const at = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
      if (resolve(diagnostic.file.fileName) === resolve(cellFile)) {
        // Wrapper line 0 is the function head and the last lines its tail: clamp into the cell.
        const line = Math.min(Math.max(at.line, 1), cellLines.length)
        const column = at.line === line ? at.character + 1 : 1
        return { ...entry, line, column, source: cellLines[line - 1] }
      }
      const declaration = declarationFiles.find((d) => resolve(d.file) === resolve(diagnostic.file.fileName))
      const file = declaration ? declaration.path : diagnostic.file.fileName
      return { ...entry, file, line: at.line + 1, column: at.character + 1 }
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** tsc-style text: `cell.ts:3:15 - error TS2345: …`, the cell line and a caret under the column. */
function formatDiagnostics(cellName, diagnostics) {
  const lines = []
  for (const d of diagnostics) {
    const where = d.line === undefined ? d.file ?? cellName : `${d.file ?? cellName}:${d.line}:${d.column}`
    lines.push(`${where} - ${d.category} TS${d.code}: ${d.message}`)
    if (d.source !== undefined) {
      const gutter = String(d.line)
      lines.push('', `${gutter} ${d.source}`, `${' '.repeat(gutter.length)} ${d.source.slice(0, d.column - 1).replace(/[^\t]/g, ' ')}^`, '')
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : ''
}

module.exports = { checkCell, formatDiagnostics, loadTypeScript, renderedDeclarations, TYPESCRIPT_MISSING, GUEST_TYPES }
