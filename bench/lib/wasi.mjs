// The comparison runtime: quickjs-wasi (QuickJS-NG in WebAssembly), used the way upstream's
// QuickJS-WASI executor uses it, in-thread with the compiled module reused (its best case). A small
// guest prelude gives cells the same `tools.<name>()` / `ALL_TOOLS` surface; nested calls go to
// the same async executor; suspension is snapshot + serialise, resumption restore + deliver.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { QuickJS } from 'quickjs-wasi'

const require = createRequire(import.meta.url)
let compiled
/** The compiled quickjs-wasi module, compiled once per thread (or handed in by `useModule`). */
export function wasmModule() {
  compiled ??= new WebAssembly.Module(readFileSync(require.resolve('quickjs-wasi/quickjs.wasm')))
  return compiled
}
/** Reuses a module compiled elsewhere (a worker gets it from its parent). */
export function useModule(module) {
  compiled = module
}

const PRELUDE = `
globalThis.__pending = new Map();
let __next = 0;
globalThis.__settle = (id, json) => { const resolve = __pending.get(id); __pending.delete(id); resolve(JSON.parse(json)); };
globalThis.ALL_TOOLS = JSON.parse(__catalogJson());
globalThis.tools = new Proxy({}, { get: (_, name) => (input) => new Promise((resolve) => {
  const id = ++__next; __pending.set(id, resolve); __call(id, String(name), JSON.stringify(input ?? {}));
}) });
`

/** The last expression becomes a `return` (quickjs-wasi has no completion-value rewrite). */
export function returning(code) {
  const lines = code.trimEnd().split('\n')
  lines[lines.length - 1] = `return (${lines[lines.length - 1].replace(/;$/, '')})`
  return lines.join('\n')
}

function installBridge(vm, catalogJson, executor, { hold = false } = {}) {
  const held = []
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
  const call = function (idHandle, nameHandle, inputHandle) {
    const id = idHandle.toNumber()
    const input = JSON.parse(inputHandle.toString())
    Promise.resolve(executor(input, nameHandle.toString())).then((value) => {
      const json = JSON.stringify(value)
      if (hold) held.push([id, json])
      else deliver(id, json)
    })
    return vm.undefined
  }
  return { call, deliver, held, catalog: () => vm.newString(catalogJson) }
}

/** create + bridge + prelude + eval + drain + dispose; resolves to the cell's value. */
export async function runCell(code, { catalogJson, executor }) {
  const vm = await QuickJS.create({ wasm: wasmModule() })
  try {
    const bridge = installBridge(vm, catalogJson, executor)
    vm.setProp(vm.global, '__call', vm.newFunction('__call', bridge.call))
    vm.setProp(vm.global, '__catalogJson', vm.newFunction('__catalogJson', bridge.catalog))
    vm.evalCode(PRELUDE).dispose()
    const promise = vm.evalCode(`(async function () {\n${returning(code)}\n})()`)
    vm.executePendingJobs()
    const settled = await vm.resolvePromise(promise)
    promise.dispose()
    if ('error' in settled) throw new Error(settled.error.consume((h) => h.toString()))
    return settled.value.consume((h) => vm.dump(h))
  } finally {
    vm.dispose()
  }
}

/** Runs a cell until it awaits a held tool call, then snapshots and serialises the VM. */
export async function suspendCell(code, { catalogJson, executor }) {
  const vm = await QuickJS.create({ wasm: wasmModule() })
  const bridge = installBridge(vm, catalogJson, executor, { hold: true })
  vm.setProp(vm.global, '__call', vm.newFunction('__call', bridge.call))
  vm.setProp(vm.global, '__catalogJson', vm.newFunction('__catalogJson', bridge.catalog))
  vm.evalCode(PRELUDE).dispose()
  vm.evalCode(`globalThis.__result = (async function () {\n${returning(code)}\n})().then((v) => { globalThis.__done = v })`).dispose()
  vm.executePendingJobs()
  await new Promise((resolve) => setImmediate(resolve))
  const bytes = QuickJS.serializeSnapshot(vm.snapshot())
  vm.dispose()
  return { bytes, held: bridge.held }
}

/** Restores a serialised VM, re-registers callbacks, delivers the held results, reads the value. */
export async function resumeCell({ bytes, held }, { catalogJson, executor }) {
  const vm = await QuickJS.restore(QuickJS.deserializeSnapshot(bytes), { wasm: wasmModule() })
  try {
    const bridge = installBridge(vm, catalogJson, executor)
    vm.registerHostCallback('__call', bridge.call)
    vm.registerHostCallback('__catalogJson', bridge.catalog)
    for (const [id, json] of held) bridge.deliver(id, json)
    return vm.global.getProp('__done').consume((h) => vm.dump(h))
  } finally {
    vm.dispose()
  }
}
