// Types of tools/check-citations.mjs for the suite (__test__/citations.spec.ts).
export interface BadCitation {
  file: string
  line: number
  cited: string
  why: string
}
export function findBadCitations(options: {
  root: string
  files: string[]
  read?: (file: string) => string
  ignored?: (paths: string[]) => Set<string>
}): BadCitation[]
export function proseLines(file: string, text: string): string[] | null
export function trackedFiles(root: string): string[]
