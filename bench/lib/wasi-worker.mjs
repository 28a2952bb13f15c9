// The reference pipeline's worker: one Worker per leg creates a quickjs-wasi VM, evaluates the
// cell (nested calls round-trip to the main thread's executor) and posts the result.
import { parentPort, workerData } from 'node:worker_threads'
import { QuickJS } from 'quickjs-wasi'
import { returning } from './wasi.mjs'

const { code, catalogJson, wasmModule } = workerData
let nextCall = 0
const waiting = new Map()
parentPort.on('message', ({ id, json }) => waiting.get(id)?.(json))

const vm = await QuickJS.create({ wasm: wasmModule })
const deliver = (id, json) => {
  const settle = vm.global.getProp('__settle')
  const idHandle = vm.newNumber(id)
  const jsonHandle = vm.newString(json)
  vm.callFunction(settle, vm.undefined, idHandle, jsonHandle).dispose()
  settle.dispose()
  idHandle.dispose()
  jsonHandle.dispose()
  vm.executePendingJobs()
}
vm.setProp(vm.global, '__call', vm.newFunction('__call', (idHandle, nameHandle, inputHandle) => {
  const id = idHandle.toNumber()
  const call = ++nextCall
  waiting.set(call, (json) => deliver(id, json))
  parentPort.postMessage({ type: 'call', call, name: nameHandle.toString(), input: inputHandle.toString() })
  return vm.undefined
}))
vm.setProp(vm.global, '__catalogJson', vm.newFunction('__catalogJson', () => vm.newString(catalogJson)))
vm.evalCode(`
globalThis.__pending = new Map(); let __next = 0;
globalThis.__settle = (id, json) => { const r = __pending.get(id); __pending.delete(id); r(JSON.parse(json)); };
globalThis.ALL_TOOLS = JSON.parse(__catalogJson());
globalThis.tools = new Proxy({}, { get: (_, name) => (input) => new Promise((resolve) => { const id = ++__next; __pending.set(id, resolve); __call(id, String(name), JSON.stringify(input ?? {})); }) });
`).dispose()
const promise = vm.evalCode(`(async function () {\n${returning(code)}\n})()`)
vm.executePendingJobs()
const settled = await vm.resolvePromise(promise)
const value = 'error' in settled ? { error: settled.error.consume((h) => h.toString()) } : { value: settled.value.consume((h) => vm.dump(h)) }
vm.dispose()
parentPort.postMessage({ type: 'done', ...value })
