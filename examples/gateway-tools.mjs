// A gateway-style tool set for the demo: 34 local tools with JSON Schemas and in-memory
// implementations. A few are slow; `deploy_status` settles only after a delay, long enough
// for a cell to come back `waiting` and be resumed with `wait`.

const files = new Map([
  ['README.md', '# Demo workspace\nThis workspace belongs to the code-mode demo.\n'],
  ['notes/todo.md', '- ship code mode\n- write the changelog\n- review PR 42\n'],
  ['src/app.js', 'export const answer = 42\n'],
])
const issues = [
  { number: 41, title: 'Gateway logs are noisy', state: 'open', labels: ['logging'] },
  { number: 42, title: 'Code mode: resume after approval', state: 'open', labels: ['code-mode'] },
  { number: 43, title: 'Typo in docs', state: 'closed', labels: ['docs'] },
]
const events = [{ id: 'e1', title: 'Standup', start: '2026-11-23T09:00:00Z' }]
const memory = new Map()
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const obj = (properties, required = []) => ({ type: 'object', properties, required, additionalProperties: false })
const str = (description) => ({ type: 'string', description })
const num = (description) => ({ type: 'number', description })

/** `[CatalogTool, implementation]` pairs. */
export const gatewayTools = [
  [{ name: 'read_file', label: 'Read file', description: 'Read a UTF-8 text file from the workspace.', parameters: obj({ path: str('Workspace-relative path') }, ['path']) },
    ({ path }) => { if (!files.has(path)) throw new Error(`no such file: ${path}`); return { path, content: files.get(path) } }],
  [{ name: 'write_file', label: 'Write file', description: 'Create or overwrite a text file in the workspace.', parameters: obj({ path: str('Workspace-relative path'), content: str('New file content') }, ['path', 'content']) },
    ({ path, content }) => { files.set(path, content); return { path, bytes: content.length } }],
  [{ name: 'list_files', label: 'List files', description: 'List workspace files under a directory prefix.', parameters: obj({ prefix: str('Directory prefix, e.g. "notes/"') }) },
    ({ prefix = '' }) => [...files.keys()].filter((p) => p.startsWith(prefix))],
  [{ name: 'delete_file', description: 'Delete a file from the workspace.', parameters: obj({ path: str('Workspace-relative path') }, ['path']) },
    ({ path }) => ({ deleted: files.delete(path) })],
  [{ name: 'grep', description: 'Search workspace files for lines matching a regular expression.', parameters: obj({ pattern: str('Regular expression'), prefix: str('Optional path prefix') }, ['pattern']) },
    ({ pattern, prefix = '' }) => {
      const re = new RegExp(pattern)
      return [...files].filter(([p]) => p.startsWith(prefix)).flatMap(([p, text]) => text.split('\n').map((line, i) => ({ path: p, line: i + 1, text: line })).filter((l) => re.test(l.text)))
    }],
  [{ name: 'exec', description: 'Run a shell command in the sandbox (the normal OpenClaw shell tool).', parameters: obj({ command: str('Shell command') }, ['command']) },
    ({ command }) => ({ command, exitCode: 0, stdout: `(demo) would run: ${command}` })],
  [{ name: 'message', label: 'Send message', description: 'Send a chat message to the current channel.', parameters: obj({ text: str('Message text') }, ['text']) },
    ({ text }) => ({ delivered: true, text })],
  [{ name: 'web_search', label: 'Web search', description: 'Search the web and return the top results with titles and URLs.', parameters: obj({ query: str('Search query'), count: num('Results to return (1-10)') }, ['query']) },
    async ({ query, count = 3 }) => { await sleep(40); return Array.from({ length: count }, (_, i) => ({ title: `${query} — result ${i + 1}`, url: `https://example.com/${encodeURIComponent(query)}/${i + 1}` })) }],
  [{ name: 'web_fetch', label: 'Fetch page', description: 'Fetch a web page and return its readable text.', parameters: obj({ url: str('Absolute URL') }, ['url']) },
    async ({ url }) => { await sleep(60); return { url, text: `Readable text of ${url}` } }],
  [{ name: 'memory_store', description: 'Store a fact in long-term memory under a key.', parameters: obj({ key: str('Memory key'), value: str('Fact to remember') }, ['key', 'value']) },
    ({ key, value }) => { memory.set(key, value); return { stored: key } }],
  [{ name: 'memory_recall', description: 'Recall a fact from long-term memory by key.', parameters: obj({ key: str('Memory key') }, ['key']) },
    ({ key }) => ({ key, value: memory.get(key) ?? null })],
  [{ name: 'memory_search', description: 'Search long-term memory for facts containing a word.', parameters: obj({ query: str('Word to look for') }, ['query']) },
    ({ query }) => [...memory].filter(([, v]) => v.includes(query)).map(([key, value]) => ({ key, value }))],
  [{ name: 'calendar_list_events', source: 'openclaw', sourceName: 'calendar', description: 'List calendar events between two ISO dates.', parameters: obj({ from: str('ISO start'), to: str('ISO end') }) },
    () => events],
  [{ name: 'calendar_create_event', source: 'openclaw', sourceName: 'calendar', description: 'Create a calendar event.', parameters: obj({ title: str('Event title'), start: str('ISO start time') }, ['title', 'start']) },
    ({ title, start }) => { const e = { id: `e${events.length + 1}`, title, start }; events.push(e); return e }],
  [{ name: 'github_list_issues', source: 'openclaw', sourceName: 'github', description: 'List GitHub issues of the current repository, optionally by state.', parameters: obj({ state: { type: 'string', enum: ['open', 'closed', 'all'] } }) },
    async ({ state = 'open' }) => { await sleep(30); return issues.filter((i) => state === 'all' || i.state === state) }],
  [{ name: 'github_get_issue', source: 'openclaw', sourceName: 'github', description: 'Get one GitHub issue by number.', parameters: obj({ number: num('Issue number') }, ['number']) },
    ({ number }) => issues.find((i) => i.number === number) ?? null],
  [{ name: 'github_comment', source: 'openclaw', sourceName: 'github', description: 'Comment on a GitHub issue.', parameters: obj({ number: num('Issue number'), body: str('Comment body') }, ['number', 'body']) },
    ({ number, body }) => ({ number, commented: body.length })],
  [{ name: 'github_close_issue', source: 'openclaw', sourceName: 'github', description: 'Close a GitHub issue.', parameters: obj({ number: num('Issue number') }, ['number']) },
    ({ number }) => { const i = issues.find((x) => x.number === number); if (i) i.state = 'closed'; return { number, closed: Boolean(i) } }],
  [{ name: 'deploy_status', source: 'openclaw', sourceName: 'deploy', description: 'Wait for the current deployment to finish and report its status (slow).', parameters: obj({ service: str('Service name') }, ['service']) },
    async ({ service }) => { await sleep(1500); return { service, status: 'healthy', version: '2026.11.22' } }],
  [{ name: 'deploy_start', source: 'openclaw', sourceName: 'deploy', description: 'Start a deployment of a service.', parameters: obj({ service: str('Service name') }, ['service']) },
    ({ service }) => ({ service, started: true })],
  [{ name: 'weather', description: 'Current weather for a city.', parameters: obj({ city: str('City name') }, ['city']) },
    async ({ city }) => { await sleep(20); return { city, tempC: 11, sky: 'overcast' } }],
  [{ name: 'currency_convert', description: 'Convert an amount between currencies at today\'s rate.', parameters: obj({ amount: num('Amount'), from: str('ISO currency'), to: str('ISO currency') }, ['amount', 'from', 'to']) },
    ({ amount, from, to }) => ({ amount, from, to, converted: Math.round(amount * 1.08 * 100) / 100 })],
  [{ name: 'translate', description: 'Translate text into another language.', parameters: obj({ text: str('Text'), to: str('Target language code') }, ['text', 'to']) },
    ({ text, to }) => ({ to, text: `[${to}] ${text}` })],
  [{ name: 'summarize', description: 'Summarize a long text into a few sentences.', parameters: obj({ text: str('Text to summarize') }, ['text']) },
    ({ text }) => ({ summary: text.split(/\s+/).slice(0, 12).join(' ') + '…' })],
  [{ name: 'image_generate', description: 'Generate an image from a prompt and return its URL.', parameters: obj({ prompt: str('Image prompt') }, ['prompt']) },
    async ({ prompt }) => { await sleep(80); return { url: `https://images.example.com/${prompt.length}.png` } }],
  [{ name: 'tts', description: 'Turn text into speech audio and return its URL.', parameters: obj({ text: str('Text to speak') }, ['text']) },
    ({ text }) => ({ url: `https://audio.example.com/${text.length}.mp3` })],
  [{ name: 'cron_add', description: 'Schedule a recurring reminder with a cron expression.', parameters: obj({ cron: str('Cron expression'), text: str('Reminder text') }, ['cron', 'text']) },
    ({ cron, text }) => ({ id: 'cron-1', cron, text })],
  [{ name: 'cron_list', description: 'List scheduled reminders.', parameters: obj({}) },
    () => [{ id: 'cron-0', cron: '0 9 * * 1', text: 'weekly planning' }]],
  [{ name: 'sessions_list', description: 'List recent chat sessions of this agent.', parameters: obj({}) },
    () => [{ key: 'agent:main:chat', updatedAt: '2026-11-22T06:00:00Z' }]],
  [{ name: 'sessions_send', description: 'Send a message into another chat session.', parameters: obj({ sessionKey: str('Target session key'), text: str('Message text') }, ['sessionKey', 'text']) },
    ({ sessionKey, text }) => ({ sessionKey, queued: text.length })],
  [{ name: 'browser_navigate', source: 'openclaw', sourceName: 'browser', description: 'Open a URL in the controlled browser.', parameters: obj({ url: str('URL') }, ['url']) },
    async ({ url }) => { await sleep(50); return { url, title: 'Example Domain' } }],
  [{ name: 'browser_snapshot', source: 'openclaw', sourceName: 'browser', description: 'Take an accessibility snapshot of the current browser page.', parameters: obj({}) },
    () => ({ nodes: 12, text: 'Example Domain — This domain is for use in examples.' })],
  [{ name: 'select_file', source: 'client', sourceName: 'app', description: 'Ask the user to pick a file in the client app.', parameters: obj({ accept: str('Accepted extensions') }) },
    () => ({ picked: 'notes/todo.md' })],
  [{ name: 'notify_user', source: 'client', sourceName: 'app', description: 'Show a desktop notification in the client app.', parameters: obj({ title: str('Title'), body: str('Body') }, ['title']) },
    ({ title }) => ({ shown: title })],
]
