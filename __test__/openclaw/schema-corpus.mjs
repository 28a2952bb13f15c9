// A deterministic corpus of JSON Schemas for Tool Search's `input` and `output` hints: the
// differential suite (tool-search-hints.spec.ts) compares this package's hints of each with
// OpenClaw's own compactToolInputHint and compactToolOutputHint (schema-hints.mjs).

/** A small seeded PRNG (mulberry32), so the corpus is the same on every run. */
function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// Names that exercise the ordering (case, `_`, `-`, digits, array-index keys) and quoting.
const NAMES = [
  'id', 'mode', 'Mode', 'MODE', 'name', 'Name', '_private', '__proto_x', 'a_b', 'ab', 'a-b', 'a b', 'A', 'a', 'b', 'B',
  'z9', 'z10', 'x1', 'X1', '0', '1', '10', '2', '007', '$ref_like', 'dollar$', 'camelCase', 'snake_case', 'kebab-case',
  'with.dot', 'with:colon', 'quote"d', 'back\\slash', 'tab\tname', 'new\nline', 'path', 'query', 'limit', 'offset',
  'channelId', 'channel_id', 'ChannelID', 'url', 'URL', 'Url', 'émoji', 'cost€', 'x'.repeat(130), 'y'.repeat(128),
]
const NUMBERS = [0, 1, -1, 1.5, 0.1, 1e21, 1e-7, 123456789012, -0.000001, 2 ** 53, 1e300, 0.5, 100, -273.15, 1 / 3]
const STRINGS = ['drip', 'flood', 'a"b', 'back\\slash', 'línea', 'new\nline', '', 'x'.repeat(40), 'ctrl\u0001', 'emoji 😀']
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object', 'weird']
const UNSUPPORTED = ['$ref', 'allOf', 'patternProperties', 'if', 'prefixItems', 'dependencies']

function generator(seed) {
  const random = prng(seed)
  const int = (n) => Math.floor(random() * n)
  const pick = (list) => list[int(list.length)]
  const chance = (p) => random() < p
  const literal = () => (chance(0.5) ? pick(STRINGS) : chance(0.6) ? pick(NUMBERS) : pick([true, false, null]))

  function schema(depth) {
    if (depth > 7 || chance(0.05)) return pick([{}, true, false, null, 'string', []])
    const s = {}
    const roll = random()
    if (roll < 0.08) {
      s.enum = Array.from({ length: chance(0.2) ? 9 + int(3) : 1 + int(8) }, literal)
      if (chance(0.1)) s.enum.push({ nested: 1 })
    } else if (roll < 0.14) {
      s.const = chance(0.1) ? { o: 1 } : literal()
    } else if (roll < 0.24) {
      const key = chance(0.85) ? 'anyOf' : 'oneOf'
      const literals = chance(0.4)
      s[key] = Array.from({ length: chance(0.1) ? 9 : 1 + int(6) }, () => (literals ? { const: literal() } : schema(depth + 1)))
      if (chance(0.08)) s.oneOf = [{ type: 'string' }]
      if (chance(0.08)) s.type = 'string'
    } else if (roll < 0.32) {
      s.type = Array.from({ length: chance(0.1) ? 6 : 1 + int(3) }, () => pick(TYPES))
      if (chance(0.1)) s.type.push(7)
      if (s.type.includes('array')) s.items = schema(depth + 1)
      if (s.type.includes('object')) Object.assign(s, object(depth))
    } else {
      s.type = pick(TYPES)
      if (s.type === 'array' && chance(0.9)) s.items = schema(depth + 1)
      if (s.type === 'object') Object.assign(s, object(depth))
      if ((s.type === 'number' || s.type === 'integer') && chance(0.6)) {
        for (const key of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
          if (chance(0.35)) s[key] = chance(0.05) ? 'ten' : pick(NUMBERS)
        }
      }
    }
    if (chance(0.1)) s.nullable = chance(0.9) ? chance(0.6) : 'yes'
    if (chance(0.05)) s[pick(UNSUPPORTED)] = chance(0.5) ? '#/defs/x' : [{ type: 'string' }]
    if (chance(0.3)) s.description = 'described'
    return s
  }

  function object(depth) {
    const o = {}
    if (chance(0.9)) {
      const count = chance(0.15) ? 14 + int(14) : int(7)
      o.properties = {}
      for (let i = 0; i < count; i++) o.properties[chance(0.8) ? pick(NAMES) : `p${int(40)}`] = schema(depth + 1)
    }
    if (chance(0.6)) {
      const keys = Object.keys(o.properties ?? {})
      o.required = keys.filter(() => chance(0.5))
      if (chance(0.15)) o.required.push(pick(NAMES))
      if (chance(0.05)) o.required.push(3)
      if (chance(0.05)) o.required = Array.from({ length: 25 }, (_, i) => `r${i}`)
    }
    if (chance(0.5)) o.additionalProperties = chance(0.5) ? false : chance(0.5) ? true : { type: 'string' }
    return o
  }

  return (depth) => schema(depth)
}

/** `count` schemas for inputs (most of them objects, as tools declare) and as many for outputs. */
export function schemaCorpus(count = 400, seed = 20260906) {
  const next = generator(seed)
  const schemas = []
  for (let i = 0; i < count; i++) {
    const s = next(0)
    // Most tools declare an object; keep some of every other kind.
    if (i % 4 !== 3 && s && typeof s === 'object' && !Array.isArray(s) && s.type !== 'object') {
      const wrapper = { type: 'object', properties: { value: s, other: next(1) }, required: i % 3 ? ['value'] : [] }
      // Closed objects half the time: only those can have a complete output hint.
      schemas.push(i % 2 ? { ...wrapper, additionalProperties: false } : wrapper)
    } else {
      schemas.push(s)
    }
  }
  return schemas
}
