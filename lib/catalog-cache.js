'use strict'
// Built catalogs shared between runs, keyed by content.
//
// A gateway builds a new tool array every turn, usually with the same tools. Building the
// catalog of 10,000 tools takes tens of milliseconds, and even serialising the array to find a
// cached one took ten: too much for every turn. So each entry keeps a flat record of the tools
// as JSON data (every key and primitive value in order, with markers for objects and arrays),
// and a later array is walked once against it, stopping at the first difference. A walk that
// meets anything JSON would treat specially (`toJSON`, class instances, bigints, cycles) gives
// up, and the array is compared as JSON text instead. Either way, equal JSON text, equal
// catalog; nothing is held by reference, so tools changed in place are a new catalog.
//
// The record is made from the JSON text, not from the live objects (a getter could answer twice
// differently), while the native side builds the catalog on a thread of its own
// (crates/catalog/src/building.rs). Bounded in entries and bytes; the least recently used goes first.

const native = require('./native.js')

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
const { getPrototypeOf } = Object
const objectToString = Object.prototype.toString
const { isArray } = Array

/** @type {{ count: number, json: string, record: unknown[] | null, catalog: object, weight: number, used: number }[]} */
const entries = []
let bytes = 0
let clock = 0

/**
 * Text, record and native catalog each hold about the JSON text's size or twice it (strings
 * are kept once per side, the record adds a pointer per value).
 */
function weightOf(json) {
  return json.length * 6
}

/** The tools as JSON text; a tool that is not JSON (a cycle, a bigint) goes as `null`. */
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

/** The flat record of parsed JSON data. */
function record(value, out) {
  if (typeof value !== 'object' || value === null) {
    out.push(value)
  } else if (isArray(value)) {
    out.push(ARRAY)
    for (const item of value) record(item, out)
    out.push(END)
  } else {
    out.push(OBJECT)
    for (const key of Object.keys(value)) {
      out.push(key)
      record(value[key], out)
    }
    out.push(END)
  }
  return out
}

let flat = null
let at = 0

/**
 * Whether JSON leaves `value` out of an object (and writes `null` for it in an array). A
 * function with a `toJSON` method is written: `walk` gives up on it, as on any function.
 */
function unwritable(value) {
  return value === undefined || typeof value === 'symbol' || (typeof value === 'function' && typeof value.toJSON !== 'function')
}

/**
 * Whether `value` serialises as the record does from `at` on (`false` also means: not sure).
 * Written with `typeof x === '…'` tests, which the JIT turns into type checks. Only plain
 * objects (prototype `Object.prototype`) and arrays are walked: JSON writes others (boxed
 * primitives, `JSON.rawJSON` values, anything with `toJSON`) its own way.
 */
function walk(value, depth) {
  if (typeof value === 'string' || typeof value === 'boolean') return flat[at++] === value
  if (typeof value === 'number') return flat[at++] === (Number.isFinite(value) ? value : null)
  if (typeof value !== 'object') return false
  if (value === null) return flat[at++] === null
  if (depth > MAX_DEPTH || typeof value.toJSON === 'function') return false
  // An array (of any class) is written by its indices, up to its length read once.
  if (isArray(value)) {
    const length = value.length
    if (!Number.isSafeInteger(length) || length < 0 || flat[at++] !== ARRAY) return false
    for (let i = 0; i < length; i++) {
      const item = value[i]
      if (unwritable(item) ? flat[at++] !== null : !walk(item, depth + 1)) return false
    }
    return flat[at++] === END
  }
  // Own enumerable keys in JSON's order (`catalogFor` made sure `Object.prototype` adds none).
  if (getPrototypeOf(value) !== OBJECT_PROTOTYPE || flat[at++] !== OBJECT) return false
  let keys = 0
  for (const key in value) {
    // A boxed string made with `Object.prototype` lists its characters as keys "0", "1"…
    if (keys++ === 0 && key === '0' && !plain(value)) return false
    const item = value[key]
    if (unwritable(item)) continue
    if (flat[at++] !== key || !walk(item, depth + 1)) return false
  }
  // …and a boxed number, boolean or bigint none.
  return flat[at++] === END && (keys > 0 || plain(value))
}

/** Whether an object that looks plain is no boxed primitive (rare shapes only: it costs a call). */
function plain(value) {
  return objectToString.call(value) === '[object Object]'
}

/**
 * Whether `tools` serialises to the JSON text `entry` was recorded from (the caller has made sure
 * `Object.prototype` has no enumerable keys, which `for…in` would add to every object's own).
 */
function matches(entry, tools) {
  flat = entry.record
  at = 0
  try {
    return walk(tools, 0) && at === flat.length
  } catch {
    return false // a getter or proxy threw: the text comparison decides (and throws the same)
  } finally {
    flat = null
  }
}

function enumerableKeys(object) {
  for (const _ in object) return true
  return false
}

function touch(entry) {
  entry.used = ++clock
  return entry.catalog
}

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
 */
function catalogFor(tools) {
  const count = tools.length
  if (!enumerableKeys(OBJECT_PROTOTYPE)) {
    for (const entry of entries) {
      if (entry.count === count && entry.record !== null && matches(entry, tools)) return touch(entry)
    }
  }
  const json = toolsJson(tools)
  for (const entry of entries) {
    if (entry.json === json) return touch(entry)
  }
  const catalog = new native.NativeCatalog(json)
  if (count >= MIN_TOOLS) {
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
