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

/**
 * Median microseconds of one message to a worker_threads Worker and its answer, the worker
 * already running: what a nested call costs at least in an executor whose cells run there.
 */
export async function workerRoundTripUs(iterations) {
  const worker = new Worker("const { parentPort } = require('node:worker_threads'); parentPort.on('message', (m) => parentPort.postMessage(m))", { eval: true })
  const once = (message) =>
    new Promise((resolve) => {
      worker.once('message', resolve)
      worker.postMessage(message)
    })
  for (let i = 0; i < 200; i++) await once({ id: i, json: '{"n":1}' })
  const samples = []
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint()
    await once({ id: i, json: '{"n":1}' })
    samples.push(Number(process.hrtime.bigint() - started) / 1000)
  }
  await worker.terminate()
  samples.sort((a, b) => a - b)
  return samples[samples.length >> 1]
}
