// Types of tools/test262/cells.mjs for the suite (__test__/test262.spec.ts).
export interface Meta {
  flags: string[]
  includes: string[]
  features: string[]
  negative: { phase: string; type: string } | null
}
export interface Test {
  id: string
  source: string
  meta: Meta
}
export interface Outcome {
  kind: 'pass' | 'parse' | 'runtime' | 'limit'
  name?: string
  message?: string
}
export const ROOT: string
export const BASELINE: string
export function readMeta(source: string): Meta
export function listTests(root?: string): Test[]
export function cellOf(test: Test, root?: string): string
export function outcomeOfResult(result: { status: string; code?: string; error?: string; failurePhase?: string }): Outcome
export function passed(test: Test, outcome: Outcome): boolean
export const KNOWN_DIFFERENCES: { reason: string; ids: string[] }[]
