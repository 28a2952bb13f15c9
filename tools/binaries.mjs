// What `npm run package` checks in a built binary before it packs it (tools/package.mjs), for
// any platform's file on any host (the release workflow packs all five on Linux): the addon
// (`code-mode.<platform>.node`) and the sandbox executable next to it (`code-mode-sandbox`,
// `code-mode-sandbox.exe` on Windows).
//
// A binary is refused when it carries
// - debug info: ELF `.debug_*` sections, Mach-O DWARF (a `__DWARF` segment or `__debug_*`
//   sections) or a debug map (N_OSO stabs, which name the object files), PE `.debug_*` sections
//   (MinGW). An MSVC build keeps its debug info in a separate .pdb, which is never packed.
// - test exports: the `testing` cargo feature's exports (src/testing_exports.rs), all named
//   `__test<Name>`; napi-rs registers each by a NUL-terminated name in the binary.
// - the testing sandbox's marker string (TESTING_SANDBOX_MARKER).

import { readFileSync } from 'node:fs'

/** The string a sandbox executable built with the `testing` feature contains. */
export const TESTING_SANDBOX_MARKER = 'code-mode-sandbox: testing build'

/** The sandbox executable's file name on a platform (`linux-x64-gnu`, `win32-x64-msvc`, …). */
export const sandboxFileName = (platform) => (platform.startsWith('win32-') ? 'code-mode-sandbox.exe' : 'code-mode-sandbox')

/** The `__test*` export names registered in `bytes` (napi-rs keeps them NUL-terminated). */
export function testExports(bytes) {
  const found = new Set()
  const needle = Buffer.from('__test')
  for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) {
    let end = at + needle.length
    if (!(bytes[end] >= 0x41 && bytes[end] <= 0x5a)) continue // __test + an upper-case letter
    while (end < bytes.length && end - at < 64 && /[A-Za-z0-9_]/.test(String.fromCharCode(bytes[end]))) end++
    if (bytes[end] === 0) found.add(bytes.toString('latin1', at, end))
  }
  return [...found].sort()
}

const cstring = (bytes, start, max) => {
  const end = bytes.indexOf(0, start)
  return bytes.toString('latin1', start, end === -1 || end - start > max ? start + max : end)
}

function elfDebugSections(bytes) {
  const is64 = bytes[4] === 2
  const le = bytes[5] === 1
  const u16 = (o) => (le ? bytes.readUInt16LE(o) : bytes.readUInt16BE(o))
  const u32 = (o) => (le ? bytes.readUInt32LE(o) : bytes.readUInt32BE(o))
  const word = (o) => (is64 ? Number(le ? bytes.readBigUInt64LE(o) : bytes.readBigUInt64BE(o)) : u32(o))
  const shoff = word(is64 ? 0x28 : 0x20)
  const shentsize = u16(is64 ? 0x3a : 0x2e)
  const shnum = u16(is64 ? 0x3c : 0x30)
  const shstrndx = u16(is64 ? 0x3e : 0x32)
  if (shoff === 0 || shnum === 0) return []
  const section = (i) => {
    const at = shoff + i * shentsize
    return { name: u32(at), type: u32(at + 4), offset: word(at + (is64 ? 0x18 : 0x10)), size: word(at + (is64 ? 0x20 : 0x14)) }
  }
  const names = section(shstrndx)
  const debug = []
  for (let i = 0; i < shnum; i++) {
    const s = section(i)
    const name = cstring(bytes, names.offset + s.name, 256)
    // SHT_NOBITS (8) sections take no room in the file (a split-debuginfo placeholder).
    if (/^\.z?debug_/.test(name) && s.type !== 8 && s.size > 0) debug.push(name)
  }
  return debug
}

function machoDebug(bytes, base = 0) {
  const magic = bytes.readUInt32LE(base)
  if (magic !== 0xfeedfacf && magic !== 0xfeedface) return ['(unsupported Mach-O)']
  const is64 = magic === 0xfeedfacf
  const ncmds = bytes.readUInt32LE(base + 16)
  const found = []
  let at = base + (is64 ? 32 : 28)
  for (let i = 0; i < ncmds; i++) {
    const cmd = bytes.readUInt32LE(at)
    const size = bytes.readUInt32LE(at + 4)
    if (cmd === 0x19 || cmd === 0x1) {
      // LC_SEGMENT_64 / LC_SEGMENT: the segment name, then its sections.
      const segment = cstring(bytes, at + 8, 16)
      if (segment === '__DWARF') found.push('__DWARF')
      const nsects = bytes.readUInt32LE(at + (is64 ? 64 : 48))
      const sectionSize = is64 ? 80 : 68
      for (let s = 0; s < nsects; s++) {
        const name = cstring(bytes, at + (is64 ? 72 : 56) + s * sectionSize, 16)
        if (name.startsWith('__debug_')) found.push(name)
      }
    } else if (cmd === 0x2) {
      // LC_SYMTAB: a debug map is N_OSO stabs (type 0x66) naming the object files.
      const symoff = bytes.readUInt32LE(at + 8)
      const nsyms = bytes.readUInt32LE(at + 12)
      const entry = is64 ? 16 : 12
      for (let s = 0; s < nsyms; s++) {
        if (bytes[base + symoff + s * entry + 4] === 0x66) {
          found.push('debug map (N_OSO stabs)')
          break
        }
      }
    }
    at += size
  }
  return found
}

function peDebugSections(bytes) {
  const pe = bytes.readUInt32LE(0x3c)
  if (bytes.readUInt32LE(pe) !== 0x00004550) return ['(unsupported PE)']
  const coff = pe + 4
  const nsections = bytes.readUInt16LE(coff + 2)
  const symbols = bytes.readUInt32LE(coff + 8)
  const nsymbols = bytes.readUInt32LE(coff + 12)
  const optional = bytes.readUInt16LE(coff + 16)
  const strings = symbols + nsymbols * 18
  const found = []
  for (let i = 0; i < nsections; i++) {
    const at = coff + 20 + optional + i * 40
    let name = cstring(bytes, at, 8)
    // Long (GNU) names are "/<offset>" into the COFF string table.
    if (/^\/\d+$/.test(name) && symbols > 0) name = cstring(bytes, strings + Number(name.slice(1)), 256)
    if (name.startsWith('.debug_')) found.push(name)
  }
  return found
}

/** The debug info `bytes` (an addon or an executable of any supported platform) carries. */
export function debugInfo(bytes) {
  if (bytes.length >= 64 && bytes.readUInt32BE(0) === 0x7f454c46) return elfDebugSections(bytes)
  if (bytes.length >= 32 && (bytes.readUInt32LE(0) === 0xfeedfacf || bytes.readUInt32LE(0) === 0xfeedface)) return machoDebug(bytes)
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0xcafebabe) {
    // A universal binary: every architecture's slice.
    const count = bytes.readUInt32BE(4)
    const found = []
    for (let i = 0; i < count; i++) found.push(...machoDebug(bytes, bytes.readUInt32BE(8 + i * 20 + 8)))
    return found
  }
  if (bytes.length >= 0x40 && bytes.toString('latin1', 0, 2) === 'MZ') return peDebugSections(bytes)
  return ['(not an ELF, Mach-O or PE file)']
}

/**
 * Why the binary at `path` must not be packed: a list of reasons, empty when it may be.
 * `allowTesting` accepts test exports and the testing sandbox marker (this repository's own
 * tests pack the testing build, with its debug info stripped).
 */
export function packingProblems(path, { allowTesting = false } = {}) {
  const bytes = readFileSync(path)
  const problems = []
  let debug
  try {
    debug = debugInfo(bytes)
  } catch {
    debug = ['(a malformed header)']
  }
  if (debug.length > 0) problems.push(`it carries debug info (${[...new Set(debug)].slice(0, 4).join(', ')})`)
  if (!allowTesting) {
    const exports = testExports(bytes)
    if (exports.length > 0) problems.push(`it is a testing build: it exports ${exports.slice(0, 4).join(', ')}${exports.length > 4 ? ', …' : ''}`)
    if (bytes.includes(TESTING_SANDBOX_MARKER)) problems.push(`it is a testing build ("${TESTING_SANDBOX_MARKER}")`)
  }
  return problems
}
