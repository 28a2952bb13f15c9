// Binaries for the packaging suites: small synthetic ELF, Mach-O and PE files (for what
// tools/binaries.mjs must find in each format), and the addon built here, made packable.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'

const root = resolve(__dirname, '..', '..')

/** A little-endian ELF64 file with these sections (each 16 bytes of data, or none for NOBITS). */
export function elf(sections: Array<{ name: string; nobits?: boolean }>) {
  const all = [{ name: '' }, { name: '.shstrtab' }, ...sections]
  const names = Buffer.from(all.map((s) => s.name).join('\0') + '\0')
  const nameOffsets = all.map((_, i) => all.slice(0, i).reduce((n, s) => n + s.name.length + 1, 0))
  const dataAt = 64 + names.length
  const shoff = dataAt + sections.length * 16
  const file = Buffer.alloc(shoff + all.length * 64)
  file.writeUInt32BE(0x7f454c46, 0)
  file[4] = 2 // 64-bit
  file[5] = 1 // little-endian
  file.writeBigUInt64LE(BigInt(shoff), 0x28)
  file.writeUInt16LE(64, 0x3a)
  file.writeUInt16LE(all.length, 0x3c)
  file.writeUInt16LE(1, 0x3e)
  names.copy(file, 64)
  all.forEach((s, i) => {
    const at = shoff + i * 64
    file.writeUInt32LE(nameOffsets[i], at)
    if (i === 0) return
    const nobits = 'nobits' in s && s.nobits
    file.writeUInt32LE(i === 1 ? 3 : nobits ? 8 : 1, at + 4)
    file.writeBigUInt64LE(BigInt(i === 1 ? 64 : dataAt + (i - 2) * 16), at + 0x18)
    file.writeBigUInt64LE(BigInt(i === 1 ? names.length : 16), at + 0x20)
  })
  return file
}

/** A Mach-O 64 file: one segment with these sections, and a symbol table of these n_types. */
export function macho(segment: string, sections: string[], symbolTypes: number[] = []) {
  const segmentSize = 72 + 80 * sections.length
  const symoff = 32 + segmentSize + 24
  const file = Buffer.alloc(symoff + 16 * symbolTypes.length)
  file.writeUInt32LE(0xfeedfacf, 0)
  file.writeUInt32LE(6, 12) // MH_DYLIB
  file.writeUInt32LE(2, 16)
  file.writeUInt32LE(segmentSize + 24, 20)
  file.writeUInt32LE(0x19, 32)
  file.writeUInt32LE(segmentSize, 36)
  file.write(segment, 40, 'latin1')
  file.writeUInt32LE(sections.length, 32 + 64)
  sections.forEach((name, i) => {
    file.write(name, 32 + 72 + i * 80, 'latin1')
    file.write(segment, 32 + 72 + i * 80 + 16, 'latin1')
  })
  const symtab = 32 + segmentSize
  file.writeUInt32LE(0x2, symtab)
  file.writeUInt32LE(24, symtab + 4)
  file.writeUInt32LE(symoff, symtab + 8)
  file.writeUInt32LE(symbolTypes.length, symtab + 12)
  symbolTypes.forEach((type, i) => (file[symoff + i * 16 + 4] = type))
  return file
}

/** A PE file with these section names; a name longer than 8 bytes goes to the COFF string table. */
export function pe(names: string[]) {
  const coff = 0x44
  const sectionsAt = coff + 20
  const strings = sectionsAt + names.length * 40
  const table = Buffer.from(names.filter((n) => n.length > 8).map((n) => n + '\0').join(''))
  const file = Buffer.alloc(strings + 4 + table.length)
  file.write('MZ', 0, 'latin1')
  file.writeUInt32LE(0x40, 0x3c)
  file.writeUInt32LE(0x00004550, 0x40)
  file.writeUInt16LE(0x8664, coff)
  file.writeUInt16LE(names.length, coff + 2)
  file.writeUInt32LE(strings, coff + 8) // the symbol table (none) and the string table after it
  file.writeUInt32LE(0, coff + 12)
  file.writeUInt16LE(0, coff + 16)
  let offset = 4
  names.forEach((name, i) => {
    if (name.length <= 8) file.write(name, sectionsAt + i * 40, 'latin1')
    else {
      file.write(`/${offset}`, sectionsAt + i * 40, 'latin1')
      offset += name.length + 1
    }
  })
  file.writeUInt32LE(4 + table.length, strings)
  table.copy(file, strings + 4)
  return file
}


/** An environment for a child that must load the addon as users do, not the suites' testing build. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { NAPI_RS_NATIVE_LIBRARY_PATH: _, ...env } = process.env
  return { ...env, ...extra }
}

/**
 * The addon built here, as `npm run package` can pack it, copied into `dir` with the sandbox
 * executable when there is one: the testing build of target/testing (which `npm test` builds;
 * its debug info stripped, about 100 MB that would make packing and installing take minutes,
 * and its test exports accepted with --allow-testing-build) or, without one (the release
 * workflow's test-binding job), the package root's release build, as it is.
 */
export function packableAddon(dir: string): { platform: string; file: string; sandbox?: string; args: string[] } {
  const testingDir = join(root, 'target', 'testing')
  const testing = existsSync(testingDir) ? readdirSync(testingDir).find((f) => /^code-mode\.[\w-]+\.node$/.test(f)) : undefined
  const release = readdirSync(root).find((f) => /^code-mode\.[\w-]+\.node$/.test(f))
  const name = testing ?? release
  if (!name) throw new Error('no addon: npm run build:test (or npm run build) first')
  const from = testing ? testingDir : root
  const platform = name.split('.')[1]
  mkdirSync(dir, { recursive: true })
  const copy = (file: string) => {
    // An executable's `.debug_gdb_scripts` is allocated, so --strip-debug keeps it; it goes too.
    const stripArgs = process.platform === 'darwin' ? ['-S', '-o', join(dir, file), join(from, file)] : ['--strip-debug', '--remove-section=.debug_gdb_scripts', '-o', join(dir, file), join(from, file)]
    if (!testing || process.platform === 'win32' || spawnSync('strip', stripArgs).status !== 0) copyFileSync(join(from, file), join(dir, file))
  }
  copy(name)
  const sandboxName = platform.startsWith('win32-') ? 'code-mode-sandbox.exe' : 'code-mode-sandbox'
  const sandbox = existsSync(join(from, sandboxName)) ? (copy(sandboxName), join(dir, sandboxName)) : undefined
  return { platform, file: join(dir, name), sandbox, args: ['--artifacts', dir, ...(testing ? ['--allow-testing-build'] : [])] }
}
