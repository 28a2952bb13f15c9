// The reference pipeline's worker: one Worker per leg creates a quickjs-wasi VM, evaluates the
// cell (nested calls round-trip to the main thread's executor) and posts the result.
import { parentPort, workerData } from 'node:worker_threads'
import { runCell, useModule } from './wasi.mjs'

const { code, catalogJson, wasmModule } = workerData
useModule(wasmModule)
let nextCall = 0
const waiting = new Map()
parentPort.on('message', ({ id, json }) => {
  waiting.get(id)?.(JSON.parse(json))
  waiting.delete(id)
})
const executor = (input, name) =>
  new Promise((resolve) => {
    const call = ++nextCall
    waiting.set(call, resolve)
    parentPort.postMessage({ type: 'call', call, name, input: JSON.stringify(input) })
  })

try {
  parentPort.postMessage({ type: 'done', value: await runCell(code, { catalogJson, executor }) })
} catch (error) {
  parentPort.postMessage({ type: 'done', error: String(error?.message ?? error) })
}
