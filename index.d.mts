// Types of the ES module entry (index.mjs): the same exports as index.d.ts.
import * as codeMode from './index.js'

export * from './index.js'
export default codeMode
