// Runs one leg the reference pipeline's way (docs/performance.md): a fresh worker_threads Worker per leg.
import { Worker } from 'node:worker_threads'
import { wasmModule } from './wasi.mjs'

const workerUrl = new URL('./wasi-worker.mjs', import.meta.url)

export function runInWorker(code, { catalogJson, executor }) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: { code, catalogJson, wasmModule: wasmModule() } })
    worker.on('message', async (message) => {
      if (message.type === 'call') {
        const value = await executor(JSON.parse(message.input), message.name)
        worker.postMessage({ id: message.call, json: JSON.stringify(value) })
      } else {
        worker.terminate()
        if ('error' in message) reject(new Error(message.error))
        else resolve(message.value)
      }
    })
    worker.on('error', reject)
  })
}
