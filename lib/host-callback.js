// @ts-check
'use strict'
// Calling the host's callbacks: onEvent, createScope, input mappers, the executor, the agent
// tools' onUpdate, the quickjs executor's notifications. Node ends a default process on an
// unhandled rejection, so whatever promise such a callback returns gets a rejection handler here,
// including a hostile one (a `then` that throws, is a throwing getter, or never calls back).

/**
 * What `value` settles to, as `await` adopts it: a native promise is followed without calling its
 * own `then` (which the host may have replaced); another thenable's `then` is read and called
 * later, where a throw of it rejects. A `then` that never calls back leaves this pending.
 * @param {unknown} value
 * @returns {Promise<unknown>}
 */
async function adopted(value) {
  return await value
}

/**
 * Gives `value`, when it could be a thenable, a rejection handler: `onRejected(reason)` runs
 * when it rejects. Never throws, and leaves no rejection of its own. The one thing it cannot
 * follow is a native promise whose `constructor` getter throws (`await` reads it, as every way of
 * following a promise does): that throw is reported, and the promise's own rejection is not handled.
 * @param {unknown} value
 * @param {(reason: unknown) => void} onRejected
 */
function handleRejection(value, onRejected) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return
  adopted(value).then(undefined, (reason) => {
    try {
      onRejected(reason)
    } catch {}
  })
}

/**
 * Calls `call` (a host callback whose answer nothing waits for) and gives `onError` what it
 * throws, or what the promise it returns rejects with. Never throws.
 * @template T
 * @param {() => T} call
 * @param {(error: unknown) => void} onError
 * @returns {T | undefined} what it returned; undefined when it threw
 */
function callHost(call, onError) {
  let returned
  try {
    returned = call()
  } catch (error) {
    try {
      onError(error)
    } catch {}
    return undefined
  }
  handleRejection(returned, onError)
  return returned
}

/** Ignores a rejection (the callback's failure is reported another way, or not at all). */
function ignore() {}

module.exports = { adopted, handleRejection, callHost, ignore }
