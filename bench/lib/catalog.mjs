// The 50-tool catalog every workload runs against, and its async executor.

const verbs = ['read', 'write', 'list', 'search', 'create', 'update', 'delete', 'send', 'fetch', 'summarize']
const nouns = ['file', 'issue', 'message', 'event', 'page']

export const catalog = verbs.flatMap((verb) =>
  nouns.map((noun) => ({
    name: `${verb}_${noun}`,
    description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${noun} in the workspace.`,
    parameters: { type: 'object', properties: { id: { type: 'string', description: `The ${noun} id` }, n: { type: 'number' } } },
  })),
)

/** The executor every runtime calls: an async JS function, as a gateway's would be. */
export async function executor(input) {
  return { ok: true, n: input?.n ?? 0 }
}

export const cells = {
  trivial: '1 + 1',
  oneCall: 'const r = await tools.read_file({ n: 1 });\nr.n',
  tenSequential: 'let s = 0;\nfor (let i = 0; i < 10; i++) s += (await tools.read_file({ n: i })).n;\ns',
  hundredParallel: 'const all = await Promise.all(Array.from({ length: 100 }, (_, i) => tools.read_file({ n: i })));\nall.length',
  // Per-call cost seen from inside the cell (µs per call), free of VM start and leg overhead.
  // Enough calls that quickjs-wasi's millisecond clock resolves them.
  sequentialPerCall: 'const t0 = performance.now();\nfor (let i = 0; i < 500; i++) await tools.read_file({ n: i });\n((performance.now() - t0) * 1000) / 500',
  parallelPerCall: 'const t0 = performance.now();\nfor (let r = 0; r < 5; r++) await Promise.all(Array.from({ length: 100 }, (_, i) => tools.read_file({ n: i })));\n((performance.now() - t0) * 1000) / 500',
  json: `const items = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: "item " + i, tags: ["a", "b"], score: i % 17 }));
const picked = items.map((x) => ({ ...x, score: x.score * 2 })).filter((x) => x.score > 10);
JSON.stringify(picked).length`,
  typescript: `interface Item { id: number; name: string; score: number }
enum Level { Low, High }
const items: Item[] = Array.from({ length: 20 }, (_, i) => ({ id: i, name: \`item \${i}\`, score: i % 5 }));
const level = (x: Item): Level => (x.score > 2 ? Level.High : Level.Low);
items.filter((x) => level(x) === Level.High).length`,
}
