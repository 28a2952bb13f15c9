// @ts-check
'use strict'
// OPENCLAW_DEBUG_CODE_MODE=1: one stderr line per exec/wait leg and per nested call, with ids,
// status, timings and sizes; never payload contents. Read when a run is created.

function debugEnabled() {
  return process.env.OPENCLAW_DEBUG_CODE_MODE === '1'
}

/**
 * Writes `[code-mode] <kind> key=value…`; values are ids, statuses, numbers.
 * @param {string} kind
 * @param {Record<string, string | number | boolean | null | undefined>} fields
 */
function debugLine(kind, fields) {
  let line = `[code-mode] ${kind}`
  for (const key of Object.keys(fields)) {
    const value = fields[key]
    if (value !== undefined && value !== null) line += ` ${key}=${value}`
  }
  try {
    process.stderr.write(`${line}\n`)
  } catch {
    // Logging must never break a run.
  }
}

/**
 * Bytes of a string as UTF-8 (sizes only; the text itself is never logged).
 * @param {string | undefined} text
 */
function byteLength(text) {
  return typeof text === 'string' ? Buffer.byteLength(text) : 0
}

module.exports = { debugEnabled, debugLine, byteLength }
