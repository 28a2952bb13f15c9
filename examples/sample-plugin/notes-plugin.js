'use strict'
// A sample OpenClaw plugin with code-mode support: three note tools and a `Notes` namespace
// over them. `createNotesPlugin()` returns what a plugin loader would wire up.

const { createCodeModeNamespaceTool } = require('../../index.js')

const PLUGIN_ID = 'notes'

function createNotesPlugin() {
  const notes = []
  const tools = {
    notes_add: {
      sourceName: PLUGIN_ID,
      description: 'Add a note with optional tags.',
      parameters: { type: 'object', required: ['text'], properties: { text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } },
      handler: ({ text, tags = [] }) => {
        if (typeof text !== 'string' || text.trim() === '') throw new Error('a note needs text')
        const note = { id: notes.length + 1, text, tags }
        notes.push(note)
        return note
      },
    },
    notes_list: {
      sourceName: PLUGIN_ID,
      description: 'List notes, optionally by tag.',
      parameters: { type: 'object', properties: { tag: { type: 'string' } } },
      handler: ({ tag } = {}) => notes.filter((n) => !tag || n.tags.includes(tag)),
    },
    notes_search: {
      sourceName: PLUGIN_ID,
      description: 'Find notes whose text contains a word.',
      parameters: { type: 'object', required: ['query'], properties: { query: { type: 'string' } } },
      handler: async ({ query }) => notes.filter((n) => n.text.toLowerCase().includes(String(query).toLowerCase())),
    },
  }
  const namespace = {
    id: 'notes',
    globalName: 'Notes',
    description: 'The user\'s notes.',
    prompt: 'Use Notes.add(text, tags?), Notes.list(tag?) and Notes.search(query).',
    requiredToolNames: ['notes_add', 'notes_list', 'notes_search'],
    createScope: (ctx) => ({
      owner: ctx.agentId ?? null,
      add: createCodeModeNamespaceTool('notes_add', ([text, tags]) => ({ text, tags })),
      list: createCodeModeNamespaceTool('notes_list', ([tag]) => (tag === undefined ? {} : { tag })),
      search: createCodeModeNamespaceTool('notes_search', ([query]) => ({ query })),
    }),
  }
  return { pluginId: PLUGIN_ID, tools, namespace, notes }
}

module.exports = { createNotesPlugin }
