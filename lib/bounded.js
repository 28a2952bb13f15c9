'use strict'
// Nested-call payloads as events carry them: a transcript can project a call without wrapping
// the executor, and an event never carries more than a bounded copy of a large value.

/** Characters of JSON (or error text) one event field carries before it is truncated. */
const EVENT_PAYLOAD_CHARS = 8192

/** `text` within the bound, else its head and the marker `…[truncated N characters]`. */
function boundedText(text) {
  if (typeof text !== 'string' || text.length <= EVENT_PAYLOAD_CHARS) return text
  return `${text.slice(0, EVENT_PAYLOAD_CHARS)}…[truncated ${text.length - EVENT_PAYLOAD_CHARS} characters]`
}

/**
 * A value whose JSON text is `json`: the value itself when its JSON is within the bound, else
 * that JSON's bounded text (a string ending in the truncation marker) and `truncated: true`.
 */
function boundedJson(json, value) {
  if (typeof json !== 'string') return { value: null, truncated: false }
  if (json.length <= EVENT_PAYLOAD_CHARS) return { value: value === undefined ? JSON.parse(json) : value, truncated: false }
  return { value: boundedText(json), truncated: true }
}

/** JSON text of `value` for an event (undefined stays undefined; cycles give null). */
function jsonOf(value) {
  try {
    return value === undefined ? undefined : JSON.stringify(value)
  } catch {
    return 'null'
  }
}

module.exports = { EVENT_PAYLOAD_CHARS, boundedText, boundedJson, jsonOf }
