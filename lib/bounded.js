// @ts-check
'use strict'
// Nested-call payloads as events carry them: a transcript can project a call without wrapping
// the executor, and an event never carries more than a bounded copy of a large value.

/** Characters of JSON (or error text) one event field carries before it is truncated. */
const EVENT_PAYLOAD_CHARS = 8192

/** The longest delay `setTimeout` takes (a longer one fires at once, with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * A copy of `text` that shares no memory with any other string. V8 makes a part of a long
 * string (`slice`, `substring`, a template or `+` that holds one) a view that keeps the whole
 * alive, so a bounded field a gateway keeps in its transcript would hold the unbounded original.
 * The copy goes through a buffer as UTF-16 code units, which keeps lone surrogates; V8 has no
 * other way to ask for a flat string of its own.
 * @template T
 * @param {T} text
 * @returns {T}
 */
function ownedText(text) {
  return typeof text === 'string' && text.length > 0 ? /** @type {T} */ (Buffer.from(text, 'utf16le').toString('utf16le')) : text
}

/**
 * An owned copy (see {@link ownedText}) of `text` within the bound, else of its head and the marker `…[truncated N characters]`.
 * @template T
 * @param {T} text
 * @returns {T}
 */
function boundedText(text) {
  if (typeof text !== 'string') return text
  if (text.length <= EVENT_PAYLOAD_CHARS) return ownedText(text)
  return /** @type {T} */ (ownedText(`${text.slice(0, EVENT_PAYLOAD_CHARS)}…[truncated ${text.length - EVENT_PAYLOAD_CHARS} characters]`))
}

/**
 * A value whose JSON text is `json`: `value` (or, without one, `json` parsed, which copies every
 * string) when its JSON is within the bound, else that JSON's bounded text (an owned string
 * ending in the truncation marker) and `truncated: true`.
 * @param {string | undefined} json
 * @param {unknown} [value]
 * @returns {{ value: unknown, truncated: boolean }}
 */
function boundedJson(json, value) {
  if (typeof json !== 'string') return { value: null, truncated: false }
  if (json.length <= EVENT_PAYLOAD_CHARS) return { value: value === undefined ? JSON.parse(json) : value, truncated: false }
  return { value: boundedText(json), truncated: true }
}

/**
 * JSON text of `value` for an event (undefined stays undefined; cycles give null).
 * @param {unknown} value
 * @returns {string | undefined}
 */
function jsonOf(value) {
  try {
    return value === undefined ? undefined : JSON.stringify(value)
  } catch {
    return 'null'
  }
}

module.exports = { EVENT_PAYLOAD_CHARS, MAX_TIMER_MS, ownedText, boundedText, boundedJson, jsonOf }
