import type { CodeModeNamespaceRegistration } from '../../index'
import type { TestToolSpec } from '../../lib/testing'

export interface Note { id: number; text: string; tags: string[] }
export declare function createNotesPlugin(): {
  pluginId: string
  tools: Record<string, TestToolSpec>
  namespace: CodeModeNamespaceRegistration
  notes: Note[]
}
