// The published declarations (index.d.ts, lib/*.d.ts, binding.d.ts) type-check in a project that
// has only `lib: ["es2023"]` and no type packages, and where DOM or Node types are present the
// signals they hand out are those hosts' real AbortSignal.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const tsc = require.resolve('typescript/bin/tsc')
const root = resolve(__dirname, '..').replaceAll('\\', '/')

// Uses every declaration file and every signal position of the public types.
const CONSUMER = `
import { CodeModeRun, createCodeModeAgentTools, type CodeModeAbortSignal, type NestedToolCall, type CodeModeNamespaceContext } from '${root}/index'
import type { McpServerConnection } from '${root}/lib/mcp'
import { createTestRun } from '${root}/lib/testing'

export async function gateway(call: NestedToolCall, ctx: CodeModeNamespaceContext, server: McpServerConnection): Promise<boolean> {
  call.signal.addEventListener('abort', () => {}, { once: true })
  call.signal.throwIfAborted()
  const run = CodeModeRun.create({ runId: 'r', tools: [], executor: () => null })
  await run.exec({ code: '1' }, { signal: call.signal })
  await createCodeModeAgentTools(run)[0].execute('id', { code: '1' }, ctx.signal)
  await server.client.callTool({ name: 't' }, undefined, { signal: call.signal })
  createTestRun({ tools: { t: () => 1 } })
  const signal: CodeModeAbortSignal = ctx.signal
  return signal.aborted && call.signal.reason !== undefined
}
`

// Where a global AbortSignal exists, values go both ways between it and the package's types.
const HOST = `
import type { CodeModeRun, NestedToolCall } from '${root}/index'

export async function host(call: NestedToolCall, run: CodeModeRun): Promise<AbortSignal> {
  await run.exec({ code: '1' }, { signal: new AbortController().signal })
  await run.exec({ code: '1' }, { signal: AbortSignal.timeout(5) })
  return call.signal
}
`

function typecheck(lib: string[], types: string[], sources: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'types-lib-'))
  const files = sources.map((source, i) => {
    writeFileSync(join(dir, `consumer${i}.ts`), source)
    return `consumer${i}.ts`
  })
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      lib, types, typeRoots: [`${root}/node_modules/@types`],
      strict: true, noEmit: true, skipLibCheck: false, target: 'es2022', module: 'esnext', moduleResolution: 'bundler',
    },
    files,
  }))
  try {
    execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' })
    return ''
  } catch (error) {
    return String((error as { stdout?: string }).stdout)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('index.d.ts without DOM or Node types', () => {
  it('type-checks with lib es2023 and types []', () => {
    expect(typecheck(['es2023'], [], [CONSUMER])).toBe('')
  }, 120_000)

  it('uses the global AbortSignal of DOM and of @types/node where they are loaded', () => {
    expect(typecheck(['es2023', 'dom'], [], [CONSUMER, HOST])).toBe('')
    expect(typecheck(['es2023'], ['node'], [CONSUMER, HOST])).toBe('')
  }, 120_000)

  it('is not the global AbortSignal when there is none: a missing member is an error', () => {
    const out = typecheck(['es2023'], [], [`import type { NestedToolCall } from '${root}/index'\nexport const f = (c: NestedToolCall) => c.signal.any`])
    expect(out).toMatch(/Property 'any' does not exist on type 'CodeModeAbortSignalLike'/)
  }, 120_000)
})
