// How a plugin author tests code-mode support with @openclaw/code-mode/testing.
import { afterEach, describe, expect, it } from 'vitest'
import { cleanupTestRuns, createTestRun } from '../../lib/testing.js'
import { createNotesPlugin } from './notes-plugin.js'

afterEach(() => cleanupTestRuns())

function notesRun() {
  const plugin = createNotesPlugin()
  const test = createTestRun({
    tools: plugin.tools,
    namespaces: [{ pluginId: plugin.pluginId, registration: plugin.namespace }],
  })
  return { plugin, test }
}

describe('notes plugin in code mode', () => {
  it('shows the Notes namespace in the exec prompt', () => {
    const { test } = notesRun()
    expect(test.run.modelTools[0].description).toContain('Notes: The user\'s notes. Use Notes.add(text, tags?)')
  })

  it('adds and searches notes through the namespace', async () => {
    const { plugin, test } = notesRun()
    const result = await test.execUntilDone(`
      await Notes.add("ship code mode", ["work"]);
      await Notes.add("buy milk");
      const work = await Notes.list("work");
      const found = await namespaces.Notes.search("MILK");
      text(\`\${work.length} work note(s)\`);
      return { work: work.map((n) => n.text), found: found.map((n) => n.id) }`)
    expect(result.status).toBe('completed')
    expect(result).toMatchObject({ value: { work: ['ship code mode'], found: [2] }, output: [{ type: 'text', text: '1 work note(s)' }] })
    expect(result.calls.map((c) => [c.name, c.input])).toEqual([
      ['notes_add', { text: 'ship code mode', tags: ['work'] }],
      ['notes_add', { text: 'buy milk' }],
      ['notes_list', { tag: 'work' }],
      ['notes_search', { query: 'MILK' }],
    ])
    expect(plugin.notes).toHaveLength(2)
  })

  it('lets the cell catch a tool error', async () => {
    const { test } = notesRun()
    const result = await test.execUntilDone('try { await Notes.add("  ") } catch (e) { return e.message }')
    expect(result).toMatchObject({ status: 'completed', value: 'a note needs text' })
    expect(result.calls[0].error).toBe('a note needs text')
  })

  it('works through tools.* too, and hides the namespace without its tools', async () => {
    const { plugin } = notesRun()
    const partial = createTestRun({
      tools: { notes_add: plugin.tools.notes_add },
      namespaces: [{ pluginId: 'notes-copy', registration: { ...plugin.namespace, id: 'notes-copy', globalName: 'NotesCopy' } }],
    })
    const result = await partial.execUntilDone('await tools.notes_add({ text: "hi" }); typeof NotesCopy')
    expect(result).toMatchObject({ status: 'completed', value: 'undefined' })
  })

  it('follows waiting results for slow tools', async () => {
    const test = createTestRun({
      config: { enabled: true, timeoutMs: 100 },
      tools: { slow_sum: async ({ a, b }: { a: number; b: number }) => new Promise((ok) => setTimeout(() => ok(a + b), 250)) },
    })
    const result = await test.execUntilDone('await tools.slow_sum({ a: 40, b: 2 })')
    expect(result.status).toBe('completed')
    expect(result.legs.length).toBeGreaterThanOrEqual(2)
    expect(result.legs.slice(0, -1).every((leg) => leg.status === 'waiting')).toBe(true)
    expect((result as { value: unknown }).value).toBe(42)
  })
})
