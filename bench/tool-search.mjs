// Only the Tool Search catalog rows of `npm run bench` (creation cold and cached, with and
// without schemas; 20 searches; 20 searches per catalog shape and query kind; a 1 MB query), with
// the release build: `node --expose-gc bench/tool-search.mjs` (`--shapes` for the last two only,
// `--json` to print them as one line).
import { catalogRows, longQueryRows, shapeRows } from './lib/tool-search.mjs'

const executor = () => null
const rows = []
const results = {}
const shapesOnly = process.argv.includes('--shapes')
if (!shapesOnly) await catalogRows({ executor, rows, results })
await shapeRows({ executor, rows, results })
await longQueryRows({ executor, rows, results })
// `--json`: rows and results as one line, for `npm run bench`, which runs these in a process of
// their own (no earlier workload's garbage or catalogs in the way).
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ rows, toolSearch: results.toolSearch }))
  process.exit(0)
}
for (const row of rows) console.log(row.filter((c) => c !== '—').join(' | '))
if (shapesOnly) process.exit(0)
const c = results.toolSearch.catalogs
console.log(`cached 10k create: ${(c[10000].coldMs / c[10000].cachedMs).toFixed(1)}× plain, ${(c[10000].schemas.coldMs / c[10000].schemas.cachedMs).toFixed(1)}× with schemas`)
console.log(`20 searches: 10k/100 = ${(c[10000].twentySearchesUs / c[100].twentySearchesUs).toFixed(2)}×, 1k/100 = ${(c[1000].twentySearchesUs / c[100].twentySearchesUs).toFixed(2)}×`)
