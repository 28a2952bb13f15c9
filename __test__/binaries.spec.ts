// What `npm run package` refuses to pack (tools/binaries.mjs): debug info in any platform's
// binary format, the testing build's `__test*` exports and the testing sandbox's marker. The
// formats are checked on small synthetic files; the real builds here on the files themselves.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { elf, macho, pe } from './support/binaries'
import { debugInfo, sandboxFileName, testExports, TESTING_SANDBOX_MARKER } from '../tools/binaries.mjs'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '..')

describe('debug info in a binary (npm run package refuses it)', () => {
  it('finds ELF .debug_* sections with data, and none in a stripped file', () => {
    expect(debugInfo(elf([{ name: '.text' }, { name: '.debug_info' }, { name: '.debug_line' }]))).toEqual(['.debug_info', '.debug_line'])
    expect(debugInfo(elf([{ name: '.text' }, { name: '.zdebug_info' }]))).toEqual(['.zdebug_info'])
    expect(debugInfo(elf([{ name: '.text' }, { name: '.rodata' }, { name: '.debug_info', nobits: true }]))).toEqual([])
  })

  it('finds Mach-O DWARF and debug maps (N_OSO stabs), and none in a stripped dylib', () => {
    expect(debugInfo(macho('__DWARF', ['__debug_info']))).toEqual(['__DWARF', '__debug_info'])
    expect(debugInfo(macho('__TEXT', ['__text'], [0x0f, 0x66]))).toEqual(['debug map (N_OSO stabs)'])
    expect(debugInfo(macho('__TEXT', ['__text', '__const'], [0x0f, 0x01]))).toEqual([])
  })

  it('finds PE .debug_* sections (MinGW, long names in the string table), and none in an MSVC DLL', () => {
    expect(debugInfo(pe(['.text', '.debug_info', '.debug_line']))).toEqual(['.debug_info', '.debug_line'])
    expect(debugInfo(pe(['.text', '.rdata', '.data', '.pdata', '.reloc']))).toEqual([])
  })

  it('refuses what it cannot read', () => {
    expect(debugInfo(Buffer.from('#!/bin/sh\necho hi\n'))).toEqual(['(not an ELF, Mach-O or PE file)'])
  })
})

describe('a testing build (npm run package refuses it)', () => {
  it('finds __test* exports by their NUL-terminated names only', () => {
    const bytes = Buffer.concat([Buffer.from('x\0__testPanic\0__testStall\0__tests are fine\0__testing\0__testPanicky'), Buffer.from([0x80])])
    expect(testExports(bytes)).toEqual(['__testPanic', '__testStall'])
  })

  it('names the sandbox executable per platform, and its testing marker', () => {
    expect(sandboxFileName('linux-x64-gnu')).toBe('code-mode-sandbox')
    expect(sandboxFileName('darwin-arm64')).toBe('code-mode-sandbox')
    expect(sandboxFileName('win32-x64-msvc')).toBe('code-mode-sandbox.exe')
    expect(TESTING_SANDBOX_MARKER).toBe('code-mode-sandbox: testing build')
  })

  const testingDir = join(root, 'target', 'testing')
  const testing = existsSync(testingDir) ? readdirSync(testingDir).find((f) => /^code-mode\.[\w-]+\.node$/.test(f)) : undefined
  it.skipIf(!testing || process.env.NAPI_RS_NATIVE_LIBRARY_PATH !== join(testingDir, testing ?? ''))(
    'finds exactly the testing addon\'s own __test* exports in target/testing, which the suites load',
    () => {
      const exported = Object.keys(require('../binding.js')).filter((k) => k.startsWith('__test')).sort()
      expect(exported.length).toBeGreaterThan(0)
      expect(testExports(readFileSync(join(testingDir, testing!)))).toEqual(exported)
    },
  )

  const release = readdirSync(root).find((f) => /^code-mode\.[\w-]+\.node$/.test(f))
  it.skipIf(!release)('finds no test exports in the package root\'s addon (what npm run build and the release workflow give)', () => {
    expect(testExports(readFileSync(join(root, release!)))).toEqual([])
  })
})

describe('an install without its sandbox executable', () => {
  it('is reported when the plugin loads (its diagnostic), not first in a cell', async () => {
    const { cpSync, mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { spawnSync } = await import('node:child_process')
    const { userEnv } = await import('./support/binaries')
    const dir = mkdtempSync(join(tmpdir(), 'code-mode-no-sandbox-'))
    try {
      for (const f of ['lib', 'index.js', 'binding.js', 'package.json']) cpSync(join(root, f), join(dir, f), { recursive: true })
      // The addon this run built, without the executable beside it.
      const testing = join(root, 'target', 'testing')
      const from = existsSync(testing) && readdirSync(testing).some((f) => f.endsWith('.node')) ? testing : root
      const addon = readdirSync(from).find((f) => /^code-mode\.[\w-]+\.node$/.test(f))!
      cpSync(join(from, addon), join(dir, addon))
      const child = spawnSync(
        process.execPath,
        ['-e', `const { loadAddon } = require(${JSON.stringify(join(dir, 'lib', 'addon.js'))}); console.log(JSON.stringify(loadAddon().error ?? null))`],
        { encoding: 'utf8', env: userEnv({ OPENCLAW_CODE_MODE_SANDBOX: '' }), timeout: 30_000 },
      )
      expect(child.stderr).toBe('')
      expect(JSON.parse(child.stdout)).toMatch(/^@openclaw\/code-mode cannot run cells: its sandbox executable \(code-mode-sandbox(\.exe)?\) is missing beside its native binary; reinstall the package \(@openclaw\/code-mode-[\w-]+\)\.$/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
