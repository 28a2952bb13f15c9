// `npm run demo`: a gateway-style walk through code mode. A catalog of local tools
// (examples/gateway-tools.mjs) and a real MCP server (@modelcontextprotocol/server-memory) is
// hidden behind exec and wait; a scripted "model" runs a few cells through the OpenClaw
// adapter, one of which outlives its leg and is resumed with wait. Each step prints the cell's
// code and the exact text the model receives back.
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gatewayTools } from './gateway-tools.mjs'

const require = createRequire(import.meta.url)
const { CodeModeRun, createCodeModeAgentTools, assertCodeModePayload } = require('../index.js')
const { connectMcpServer, forwardMcpCall } = require('../lib/mcp.js')

// The memory server's file, in a folder removed when the demo exits, however it exits.
const scratch = mkdtempSync(join(tmpdir(), 'code-mode-demo-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
const memory = await connectMcpServer({
  name: 'memory',
  command: process.execPath,
  args: [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')],
  env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
})
const implementations = new Map(gatewayTools.map(([tool, impl]) => [tool.name, impl]))
const catalogTools = [...gatewayTools.map(([tool]) => tool), ...memory.tools]
const transcript = []

const run = CodeModeRun.create({
  config: { enabled: true, timeoutMs: 1000 },
  runId: 'demo-run',
  sessionId: 'demo-session',
  sessionKey: 'agent:main:demo',
  agentId: 'main',
  tools: catalogTools,
  // The gateway's executor: policy, approvals and hooks would run here.
  executor: async (call) =>
    call.source === 'mcp' ? forwardMcpCall([memory], call) : implementations.get(call.name)(call.input ?? {}),
  onEvent: (event) => transcript.push(event),
})

const agentTools = createCodeModeAgentTools(run)
assertCodeModePayload(agentTools.map((t) => t.name))
const [exec, wait] = agentTools
let callNumber = 0

const indent = (text) => text.split('\n').map((line) => `   │ ${line}`).join('\n')

function show(title, params, result, content, ms) {
  console.log(`\n━━ ${title}  (${result.status}, ${ms.toFixed(1)} ms)`)
  console.log(`   ${'code' in params ? `cell (${params.language ?? 'javascript'})` : 'wait input'}:`)
  console.log(indent('code' in params ? params.code : JSON.stringify(params)))
  console.log('   the model receives:')
  console.log(indent(content.map((item) => item.text).join('\n')))
}

async function model(title, tool, params) {
  const started = performance.now()
  const { content, details } = await tool.execute(`call_${++callNumber}`, params)
  show(title, params, details, content, performance.now() - started)
  return details
}

// Counted from the run itself, so the header always agrees with what the cells see.
const { catalogSize, sources } = run.telemetry
console.log(
  `Model-visible tools: ${agentTools.map((t) => t.name).join(', ')}; hidden catalog: ${catalogSize} tools ` +
    `(${gatewayTools.length} local, ${sources.mcp} behind MCP.memory; ${run.catalog.length} in ALL_TOOLS)`,
)

await model('Discover the catalog', exec, {
  code: `const hits = await tools.search("read a file from the workspace", { limit: 3 });
const schema = await tools.describe(hits[0].id);
({ catalogSize: ALL_TOOLS.length, top: hits.map((h) => h.id), required: schema.parameters.required })`,
})

await model('Triage open issues in parallel', exec, {
  code: `const open = await tools.github_list_issues({ state: "open" });
const details = await Promise.all(open.map((i) => tools.github_get_issue({ number: i.number })));
const codeMode = details.filter((i) => i.labels.includes("code-mode"));
await Promise.all(codeMode.map((i) => tools.github_comment({ number: i.number, body: "Looking into it." })));
text(\`\${open.length} open, \${codeMode.length} about code mode\`);
codeMode.map((i) => i.title)`,
})

await model('Grep the workspace and write a summary (TypeScript)', exec, {
  language: 'typescript',
  code: `interface Hit { path: string; line: number; text: string }
const hits: Hit[] = await tools.grep({ pattern: "^- " });
const summary = hits.map((h) => \`\${h.path}:\${h.line} \${h.text}\`).join("\\n");
await tools.write_file({ path: "notes/summary.md", content: summary });
({ lines: hits.length, written: "notes/summary.md" } as const)`,
})

const waiting = await model('Deploy and wait for the slow status tool', exec, {
  code: `await tools.deploy_start({ service: "gateway" });
text("deployment started");
const status = await tools.deploy_status({ service: "gateway" });
text("deployment finished");
status`,
})
if (waiting.status === 'waiting') {
  await new Promise((resolve) => setTimeout(resolve, 800))
  await model('Resume with wait', wait, { runId: waiting.runId })
}

await model('Read the MCP declarations, then use the memory server', exec, {
  code: `const files = await API.list("mcp");
const decl = await API.read("mcp/memory.d.ts");
await MCP.memory.createEntities({ entities: [
  { name: "code mode", entityType: "feature", observations: ["hides tool schemas behind exec and wait"] },
  { name: "QuickJS", entityType: "engine", observations: ["runs the cells"] } ] });
await MCP.memory.createRelations({ relations: [{ from: "code mode", to: "QuickJS", relationType: "runs on" }] });
const graph = JSON.parse((await MCP.memory.readGraph()).content[0].text);
text(decl.split("\\n").find((line) => line.includes("function createEntities")).trim());
({ files: files.map((f) => f.path), entities: graph.entities.length, relations: graph.relations.map((r) => r.relationType) })`,
})

await model('A module import is refused', exec, { code: 'import fs from "node:fs"\nfs.readFileSync("/etc/passwd")' })
await model('An infinite loop is stopped', exec, { code: 'let n = 0; while (true) n++' })
await model('A tool error is catchable', exec, {
  code: 'try { await tools.read_file({ path: "missing.txt" }) } catch (e) { return `handled: ${e.message}` }',
})

const nested = transcript.filter((e) => e.type === 'tool_call_end')
console.log(`\nTranscript: ${nested.length} nested calls, e.g.`)
for (const e of nested.slice(0, 3)) console.log(`   ${e.parentToolCallId} → ${e.toolId} (${e.durationMs} ms, ok=${e.ok})`)
console.log(`Cell events: ${transcript.filter((e) => e.type.startsWith('cell_')).map((e) => e.type).join(', ')}`)
console.log('Run telemetry:', JSON.stringify(run.telemetry))

const direct = JSON.stringify(catalogTools.map(({ name, description, parameters }) => ({ name, description, parameters })))
const surface = JSON.stringify(run.modelTools.map(({ name, description, parameters }) => ({ name, description, parameters })))
await memory.close()
console.log(`\nPrompt size: ${catalogTools.length} direct tool schemas = ${direct.length} bytes; exec + wait = ${surface.length} bytes (${(100 * surface.length / direct.length).toFixed(0)}%)`)
