// Resident memory of the bench's process tree: this package keeps its cells in sandbox
// processes, so a figure of the Node process alone would leave them out.
import { readFileSync, readdirSync } from 'node:fs'

/**
 * Resident bytes of this process and, on Linux, of its children: the sandbox processes where
 * this package's cells live (elsewhere the children are not counted, and the figure says so).
 */
export function treeRss() {
  let rss = process.memoryUsage().rss
  if (process.platform !== 'linux') return rss
  for (const task of readdirSync(`/proc/${process.pid}/task`)) {
    let children = ''
    try {
      children = readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8')
    } catch {}
    for (const child of children.split(' ').filter(Boolean)) {
      try {
        const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1]
        if (kib) rss += Number(kib) * 1024
      } catch {}
    }
  }
  return rss
}
