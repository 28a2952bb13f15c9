// @ts-check
'use strict'
// Built catalogs shared between runs, keyed by content.
//
// A gateway builds a new tool array every turn, usually with the same tools. Building the
// catalog of 10,000 tools takes tens of milliseconds, and even serialising the array to find a
// cached one took ten: too much for every turn. So each entry keeps a flat record of the tools
// as JSON data (every key and primitive value in order, with markers for objects and arrays),
// and a later array is walked once against it, stopping at the first difference. The walk reads
// each value as `JSON.stringify` would (the same property reads in the same order) and vouches
// only for what it can prove JSON writes as it reads: plain objects and arrays, strings,
// numbers, booleans and null. Anything else (a proxy, a boxed primitive, `toJSON`, a class
// instance, a bigint, a cycle) makes it give up, and the array is compared as JSON text
// instead. Either way, equal JSON text, equal catalog; nothing is held by reference, so tools
// changed in place are a new catalog.
//
// The record is made from the JSON text, not from the live objects (a getter could answer twice
// differently), while the native side builds the catalog on a thread of its own
// (crates/catalog/src/building.rs). Bounded in entries and bytes; the least recently used goes first.

const native = require('./native.js')
const { isBoxedPrimitive, isProxy } = require('node:util').types

/** Catalogs kept at most. */
const MAX_ENTRIES = 16
/** What the kept catalogs may weigh, estimated from their JSON text ({@link weightOf}). */
const MAX_BYTES = 256 * 1024 * 1024
/** Below this many tools a catalog is built in well under a millisecond: not worth a slot. */
const MIN_TOOLS = 64
/** Deeper than this, a walk gives up (and the text comparison decides). */
const MAX_DEPTH = 256

const OBJECT = Object.freeze({ marker: 'object' })
const ARRAY = Object.freeze({ marker: 'array' })
const END = Object.freeze({ marker: 'end' })
const OBJECT_PROTOTYPE = Object.prototype
const { getPrototypeOf, keys: ownKeys } = Object
const { isArray } = Array

/** @typedef {import('../binding').NativeCatalog} NativeCatalog */
/** @typedef {{ count: number, json: string, record: unknown[] | null, catalog: NativeCatalog, weight: number, used: number }} Entry */

/** @type {Entry[]} */
const entries = []
let bytes = 0
let clock = 0

/**
 * Text, record and native catalog each hold about the JSON text's size or twice it (strings
 * are kept once per side, the record adds a pointer per value).
 * @param {string} json
 */
function weightOf(json) {
  return json.length * 6
}

/**
 * The tools as JSON text; a tool that is not JSON (a cycle, a bigint) goes as `null`.
 * @param {unknown[]} tools
 * @returns {string}
 */
function toolsJson(tools) {
  try {
    return JSON.stringify(tools)
  } catch {
    return JSON.stringify(
      tools.map((tool) => {
        try {
          return JSON.parse(JSON.stringify(tool))
        } catch {
          return null // not JSON: counted as invalid by the catalog
        }
      }),
    )
  }
}

/**
 * The flat record of parsed JSON data.
 * @param {unknown} value
 * @param {unknown[]} out
 */
function record(value, out) {
  if (typeof value !== 'object' || value === null) {
    out.push(value)
  } else if (isArray(value)) {
    out.push(ARRAY)
    for (const item of value) record(item, out)
    out.push(END)
  } else {
    out.push(OBJECT)
    for (const key of ownKeys(value)) {
      out.push(key)
      record(/** @type {Record<string, unknown>} */ (value)[key], out)
    }
    out.push(END)
  }
  return out
}

/**
 * What `walk` reads between walks (no record is held then).
 * @type {readonly unknown[]}
 */
const NO_RECORD = []
/**
 * The record being walked.
 * @type {readonly unknown[]}
 */
let flat = NO_RECORD
let at = 0

/**
 * Whether JSON leaves `value` out of an object (and writes `null` for it in an array). A
 * function with a `toJSON` method is written: `walk` gives up on it, as on any function.
 * @param {unknown} value
 */
function unwritable(value) {
  return value === undefined || typeof value === 'symbol' || (typeof value === 'function' && typeof (/** @type {{ toJSON?: unknown }} */ (value).toJSON) !== 'function')
}

/**
 * Whether `value` serialises as the record does from `at` on (`false` also means: not sure).
 * Written with `typeof x === '…'` tests, which the JIT turns into type checks.
 *
 * What JSON writes of an object depends on more than its properties, and all of that is refused
 * before a property is read: a proxy (JSON runs its traps, which need not answer as they did for
 * the walk) and a boxed primitive (JSON writes the primitive in its internal slot, whatever its
 * prototype, keys or `Symbol.toStringTag` say), both asked of V8 itself; then anything with
 * `toJSON`; then any object but a plain one (prototype `Object.prototype`) or an array, which
 * also refuses `JSON.rawJSON` values (frozen, null prototype). What is left is read as
 * `JSON.stringify` reads it: `toJSON`, then an array's length once and its indices, or an
 * object's own enumerable string keys (`Object.keys`, the list JSON takes) and each value in
 * that order, so a getter answers the walk what it would answer JSON.
 * @param {any} value
 * @param {number} depth
 * @returns {boolean}
 */
function walk(value, depth) {
  if (typeof value === 'string' || typeof value === 'boolean') return flat[at++] === value
  if (typeof value === 'number') return flat[at++] === (Number.isFinite(value) ? value : null)
  if (typeof value !== 'object') return false
  if (value === null) return flat[at++] === null
  if (depth > MAX_DEPTH || isProxy(value) || isBoxedPrimitive(value) || typeof value.toJSON === 'function') return false
  // An array (of any class or realm) is written by its indices, up to its length read once.
  if (isArray(value)) {
    const length = value.length
    if (!Number.isSafeInteger(length) || length < 0 || flat[at++] !== ARRAY) return false
    for (let i = 0; i < length; i++) {
      const item = value[i]
      if (unwritable(item) ? flat[at++] !== null : !walk(item, depth + 1)) return false
    }
    return flat[at++] === END
  }
  if (getPrototypeOf(value) !== OBJECT_PROTOTYPE || flat[at++] !== OBJECT) return false
  const keys = ownKeys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const item = value[key]
    if (unwritable(item)) continue
    if (flat[at++] !== key || !walk(item, depth + 1)) return false
  }
  return flat[at++] === END
}

/**
 * Whether `tools` serialises to the JSON text `record` was recorded from.
 * @param {unknown[]} record
 * @param {unknown[]} tools
 */
function matches(record, tools) {
  flat = record
  at = 0
  try {
    return walk(tools, 0) && at === flat.length
  } catch {
    return false // a getter or proxy threw: the text comparison decides (and throws the same)
  } finally {
    flat = NO_RECORD
  }
}

/** @param {Entry} entry */
function touch(entry) {
  entry.used = ++clock
  return entry.catalog
}

/** @param {Entry} entry */
function insert(entry) {
  if (entry.weight > MAX_BYTES) return
  while (entries.length >= MAX_ENTRIES || bytes + entry.weight > MAX_BYTES) {
    let oldest = 0
    for (let i = 1; i < entries.length; i++) if (entries[i].used < entries[oldest].used) oldest = i
    bytes -= entries[oldest].weight
    entries.splice(oldest, 1)
  }
  bytes += entry.weight
  entries.push(entry)
}

/**
 * The native catalog of `tools` (an array): the one built for equal content before if it is
 * still kept, else a new one (kept when large enough).
 * @param {unknown[]} tools
 * @returns {NativeCatalog}
 */
function catalogFor(tools) {
  const count = tools.length
  for (const entry of entries) {
    if (entry.count === count && entry.record !== null && matches(entry.record, tools)) return touch(entry)
  }
  const json = toolsJson(tools)
  for (const entry of entries) {
    if (entry.json === json) return touch(entry)
  }
  const catalog = new native.NativeCatalog(json)
  if (count >= MIN_TOOLS) {
    /** @type {unknown[] | null} */
    let flatRecord = null
    try {
      flatRecord = record(JSON.parse(json), [])
    } catch {
      // Too deep to record: this catalog is found by its text only.
    }
    insert({ count, json, record: flatRecord, catalog, weight: weightOf(json), used: ++clock })
  }
  return catalog
}

/** Forgets every kept catalog (tests measuring a cold build). */
function clearCatalogCache() {
  entries.length = 0
  bytes = 0
}

module.exports = { catalogFor, clearCatalogCache }
