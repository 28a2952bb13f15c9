import { describe, expect, it } from 'vitest'
import { configureCodeModeRuntime, resolveCodeModeConfig } from '../index.js'

const DEFAULTS = {
  enabled: false,
  runtime: 'quickjs',
  mode: 'only',
  languages: ['javascript', 'typescript'],
  timeoutMs: 10_000,
  memoryLimitBytes: 67_108_864,
  maxOutputBytes: 65_536,
  maxSnapshotBytes: 10_485_760,
  maxPendingToolCalls: 16,
  maxToolInputBytes: 8_388_608,
  snapshotTtlSeconds: 900,
  searchDefaultLimit: 8,
  maxSearchLimit: 50,
}

describe('resolveCodeModeConfig', () => {
  it('is off when omitted, false, or an object without enabled: true', () => {
    expect(resolveCodeModeConfig()).toEqual(DEFAULTS)
    expect(resolveCodeModeConfig(false).enabled).toBe(false)
    expect(resolveCodeModeConfig({ timeoutMs: 5000 }).enabled).toBe(false)
    expect(resolveCodeModeConfig({ enabled: 'true' }).enabled).toBe(false)
    expect(resolveCodeModeConfig({ enabled: 1 }).enabled).toBe(false)
    expect(resolveCodeModeConfig('yes').enabled).toBe(false)
  })

  it('accepts the shorthand and the explicit gate', () => {
    expect(resolveCodeModeConfig(true)).toEqual({ ...DEFAULTS, enabled: true })
    expect(resolveCodeModeConfig({ enabled: true })).toEqual({ ...DEFAULTS, enabled: true })
  })

  it('clamps integers into range', () => {
    const config = resolveCodeModeConfig({
      enabled: true,
      timeoutMs: 50,
      memoryLimitBytes: 2 ** 40,
      maxOutputBytes: 10,
      maxSnapshotBytes: 1e12,
      maxPendingToolCalls: 1000,
      maxToolInputBytes: 1e12,
      snapshotTtlSeconds: 1e9,
      maxSearchLimit: 99,
    })
    expect(config).toMatchObject({
      timeoutMs: 100,
      memoryLimitBytes: 1_073_741_824,
      maxOutputBytes: 1024,
      maxSnapshotBytes: 268_435_456,
      maxPendingToolCalls: 128,
      maxToolInputBytes: 67_108_864,
      snapshotTtlSeconds: 86_400,
      maxSearchLimit: 50,
    })
    expect(resolveCodeModeConfig({ timeoutMs: 60_001 }).timeoutMs).toBe(60_000)
    expect(resolveCodeModeConfig({ timeoutMs: 2500 }).timeoutMs).toBe(2500)
  })

  it('falls back to the default for non-integer or non-positive values', () => {
    for (const bad of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3000', null, {}, [1]]) {
      expect(resolveCodeModeConfig({ enabled: true, timeoutMs: bad }).timeoutMs).toBe(10_000)
      expect(resolveCodeModeConfig({ enabled: true, maxPendingToolCalls: bad }).maxPendingToolCalls).toBe(16)
    }
  })

  it('filters languages to the known two, empty meaning both', () => {
    expect(resolveCodeModeConfig({ languages: ['typescript'] }).languages).toEqual(['typescript'])
    expect(resolveCodeModeConfig({ languages: ['python', 'javascript', 7] }).languages).toEqual(['javascript'])
    expect(resolveCodeModeConfig({ languages: [] }).languages).toEqual(['javascript', 'typescript'])
    expect(resolveCodeModeConfig({ languages: ['ruby'] }).languages).toEqual(['javascript', 'typescript'])
    expect(resolveCodeModeConfig({ languages: 'javascript' }).languages).toEqual(['javascript', 'typescript'])
  })

  it('clamps searchDefaultLimit to maxSearchLimit', () => {
    expect(resolveCodeModeConfig({ maxSearchLimit: 5 }).searchDefaultLimit).toBe(5)
    expect(resolveCodeModeConfig({ maxSearchLimit: 20, searchDefaultLimit: 30 }).searchDefaultLimit).toBe(20)
    expect(resolveCodeModeConfig({ searchDefaultLimit: 12 }).searchDefaultLimit).toBe(12)
  })

  it('keeps an unknown runtime so runs fail closed, and accepts the legacy name', () => {
    expect(resolveCodeModeConfig({ runtime: 'quickjs-wasi' }).runtime).toBe('quickjs-wasi')
    expect(resolveCodeModeConfig({ runtime: 'v8' }).runtime).toBe('v8')
    expect(resolveCodeModeConfig({ mode: 'all' }).mode).toBe('only')
  })

  it('never throws, even on hostile input', () => {
    const hostile = {
      get enabled(): boolean {
        throw new Error('getter')
      },
      timeoutMs: 500,
    }
    expect(resolveCodeModeConfig(hostile)).toMatchObject({ enabled: false, timeoutMs: 500 })
    const cyclic: Record<string, unknown> = { enabled: true }
    cyclic.self = cyclic
    expect(resolveCodeModeConfig(cyclic).enabled).toBe(true)
    expect(resolveCodeModeConfig(() => true).enabled).toBe(false)
    expect(resolveCodeModeConfig(Symbol('x')).enabled).toBe(false)
    expect(resolveCodeModeConfig(10n).enabled).toBe(false)
  })
})

describe('configureCodeModeRuntime', () => {
  it('refuses a count out of its range with a clear error, and changes nothing', () => {
    // napi would wrap -1 to 4294967295 (no cap at all) and 2 ** 32 + 2 to 2.
    for (const [field, value, range] of [
      ['maxSuspendedCells', -1, '1 to 1000000'],
      ['maxSuspendedCells', 2 ** 32 + 2, '1 to 1000000'],
      ['maxActiveCells', -1, '1 to 1000000'],
      ['maxActiveCells', Number.NaN, '1 to 1000000'],
      ['sandboxProcesses', 0, '1 to 64'],
      ['sandboxProcesses', 65, '1 to 64'],
      ['workerThreads', 1.5, '1 to 256'],
      ['workerThreads', Number.POSITIVE_INFINITY, '1 to 256'],
    ] as const) {
      expect(() => configureCodeModeRuntime({ workerThreads: 4, [field]: value })).toThrow(
        `configureCodeModeRuntime: ${field} must be a whole number from ${range}, not ${String(value)}`,
      )
    }
    expect(() => configureCodeModeRuntime({ maxSuspendedCells: '64' as never })).toThrow(/maxSuspendedCells|[Nn]umber/)
    expect(() => configureCodeModeRuntime({})).not.toThrow()
  })

  it('throws a TypeError for a value of the wrong type and a RangeError out of range, naming the option', () => {
    const thrown = (options: unknown) => {
      try {
        ;(configureCodeModeRuntime as (options?: unknown) => void)(...(options === 'no argument' ? [] : [options]))
      } catch (error) {
        return error as Error
      }
      throw new Error(`configureCodeModeRuntime accepted ${String(options)}`)
    }
    const ranges = { maxSuspendedCells: '1 to 1000000', maxActiveCells: '1 to 1000000', sandboxProcesses: '1 to 64', workerThreads: '1 to 256' }
    for (const [field, range] of Object.entries(ranges)) {
      for (const [value, shown] of [['4', 'a string'], [null, 'null'], [4n, 'a bigint'], [true, 'a boolean'], [{}, 'an object'], [[4], 'an array'], [() => 4, 'a function']] as const) {
        const error = thrown({ [field]: value })
        expect(error, `${field}: ${shown}`).toBeInstanceOf(TypeError)
        expect(error.message).toBe(`configureCodeModeRuntime: ${field} must be a whole number from ${range}, not ${shown}`)
      }
      for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = thrown({ [field]: value })
        expect(error, `${field}: ${value}`).toBeInstanceOf(RangeError)
        expect(error.message).toBe(`configureCodeModeRuntime: ${field} must be a whole number from ${range}, not ${String(value)}`)
      }
    }
    for (const [options, shown] of [['no argument', 'undefined'], [null, 'null'], [5, 'a number'], [() => {}, 'a function'], ['{}', 'a string'], [[], 'an array']] as const) {
      const error = thrown(options)
      expect(error, shown).toBeInstanceOf(TypeError)
      expect(error.message).toBe(`configureCodeModeRuntime: options must be an object such as { workerThreads: 4 }, not ${shown}`)
    }
    // A getter or Proxy trap that throws is refused by name, and nothing else of the call applies.
    const getter = thrown({ maxSuspendedCells: 3, get workerThreads() { throw new Error('getter') } })
    expect(getter).toBeInstanceOf(TypeError)
    expect(getter.message).toBe('configureCodeModeRuntime: reading workerThreads threw: getter')
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    expect(thrown(revocable.proxy).message).toMatch(/^configureCodeModeRuntime: reading \w+ threw: .*revoked/)
  })
})
