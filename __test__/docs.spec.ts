// The documents a user reads agree with the code: the README's configuration tables give every
// key the resolvers return, with the default and range they apply; its install section names the
// tarballs `npm run package` writes; every local link resolves; the changelog keeps its format.
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { selfContainedTarball, tarballPrefix } from '../tools/package.mjs'

const root = resolve(__dirname, '..')
const read = (file: string) => readFileSync(join(root, file), 'utf8')
const readme = read('README.md')
const pkg = JSON.parse(read('package.json'))
const { resolveCodeModeConfig, resolveToolSearchConfig } = require('../index.js')

/** How the README writes a value: sizes of `*Bytes` keys in KiB/MiB/GiB, numbers with commas. */
function shown(key: string, value: unknown): string {
  if (typeof value === 'number' && key.endsWith('Bytes')) {
    for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) {
      if (value % size === 0) return `${value / size} ${unit}`
    }
  }
  if (typeof value === 'number') return value.toLocaleString('en-US')
  return JSON.stringify(value).replace(/","/g, '", "')
}

/** The README table that follows `heading` (a line), as rows of cells by their first cell. */
function table(heading: string) {
  const start = readme.indexOf(heading)
  expect(start, heading).toBeGreaterThanOrEqual(0)
  const lines = readme.slice(start).split('\n')
  const first = lines.findIndex((line) => line.startsWith('|'))
  const rows = new Map<string, string[]>()
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break
    const cells = line.split('|').slice(1, -1).map((c) => c.trim())
    rows.set(cells[0].replace(/`/g, ''), cells)
  }
  return rows
}

/** The range a resolver clamps an integer key into: what a tiny and a huge value become. */
function range(resolver: (value: unknown) => Record<string, unknown>, key: string) {
  return [resolver({ enabled: true, [key]: 1 })[key], resolver({ enabled: true, [key]: 2 ** 40 })[key]]
}

describe('the README', () => {
  it('documents every tools.codeMode key with the default and range resolveCodeModeConfig applies', () => {
    const rows = table('`tools.codeMode` (`resolveCodeModeConfig(value)`')
    const defaults = resolveCodeModeConfig({}) as Record<string, unknown>
    const keys = Object.keys(defaults).filter((key) => key !== 'mode')
    expect([...rows.keys()].sort()).toEqual(keys.sort())
    for (const key of keys) {
      const [, value, limits] = rows.get(key)!
      expect(value.replace(/`/g, ''), key).toBe(shown(key, defaults[key]))
      if (typeof defaults[key] !== 'number') continue
      const [min, max] = range(resolveCodeModeConfig, key)
      if (key === 'searchDefaultLimit') expect(limits).toBe(`${min}–\`maxSearchLimit\``)
      else expect(limits, key).toBe(`${shown(key, min)}–${shown(key, max)}`)
    }
    expect(readme).toContain('`mode` is always `"only"`')
  })

  it('documents every tools.toolSearch key with the default and range resolveToolSearchConfig applies', () => {
    const rows = table('`tools.toolSearch` (`resolveToolSearchConfig(value)`)')
    // Unset, it is off; an object turns it on, with the defaults of every other key.
    const unset = resolveToolSearchConfig(undefined) as Record<string, unknown>
    const defaults = resolveToolSearchConfig({}) as Record<string, unknown>
    expect([...rows.keys()].sort()).toEqual(Object.keys(defaults).sort())
    for (const key of Object.keys(defaults)) {
      const [, value, limits] = rows.get(key)!
      expect(value.replace(/`/g, ''), key).toBe(shown(key, key === 'enabled' ? unset.enabled : defaults[key]))
      if (typeof defaults[key] !== 'number') continue
      const [min, max] = range(resolveToolSearchConfig, key)
      if (key === 'searchDefaultLimit') expect(limits).toBe(`${min}–\`maxSearchLimit\``)
      else expect(limits, key).toBe(`${shown(key, min)}–${shown(key, max)}`)
    }
  })

  it('names the tarballs npm run package writes, and says the registry package is not published yet', () => {
    const prefix = tarballPrefix(pkg.name)
    expect(readme).toContain(`\`${selfContainedTarball(pkg.name, pkg.version, '<platform>')}\``)
    expect(readme).toContain(`\`${prefix}-${pkg.version}.tgz\``)
    expect(readme).toContain(`\`${prefix}-<platform>-${pkg.version}.tgz\``)
    expect(readme).toContain(`openclaw plugins install npm-pack:dist/${selfContainedTarball(pkg.name, pkg.version, 'linux-x64-gnu')}`)
    expect(readme).toMatch(/is \*\*not on the npm registry yet\*\*/)
    // One npm ci per clone, then the two commands.
    expect(readme.match(/^npm ci\b/gm)).toHaveLength(2) // the install section, and Development's reminder
    expect(readme).toMatch(/\nnpm ci +# once per clone.*\nnpm run demo .*\nnpm test /)
  })

  it('puts its sections in the order a user needs them', () => {
    const headings = readme.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3))
    expect(headings).toEqual([
      'Install',
      'Use it as OpenClaw\'s `quickjs` executor',
      'Use it as a library from a gateway',
      'For plugin authors',
      'Configuration',
      'Security model',
      'Numbers',
      'Development',
      'License',
    ])
  })
})

describe('the documents', () => {
  const documents = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'ARCHITECTURE.md', 'SECURITY.md', 'docs/performance.md', 'docs/hardening.md']

  it('link only to files that exist', () => {
    for (const document of documents) {
      for (const [, target] of read(document).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue
        expect(existsSync(join(root, dirname(document), target)), `${document} → ${target}`).toBe(true)
      }
    }
  })

  it('keep a changelog in the Keep a Changelog format', () => {
    const changelog = read('CHANGELOG.md')
    expect(changelog).toMatch(/^# Changelog\n/)
    expect(changelog).toContain('## [Unreleased]')
    for (const heading of changelog.split('\n').filter((l) => l.startsWith('### '))) {
      expect(['### Added', '### Changed', '### Deprecated', '### Removed', '### Fixed', '### Security']).toContain(heading)
    }
  })
})
