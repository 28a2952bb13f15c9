// Timing helpers: medians over repeated runs, after a warm-up.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/**
 * Median wall time of `fn` in microseconds. With `timed`, `fn` measures itself and returns its
 * own microseconds (to leave set-up such as a pause out of the sample).
 */
export async function timeUs(fn, { iterations = 200, warmup = 20, timed = false } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i)
  const samples = []
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint()
    const own = await fn(i)
    samples.push(timed ? own : Number(process.hrtime.bigint() - started) / 1000)
  }
  return median(samples)
}

export function formatUs(us) {
  if (us === undefined || us === null || Number.isNaN(us)) return '—'
  if (us >= 10_000) return `${(us / 1000).toFixed(1)} ms`
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`
  return `${us.toFixed(us < 10 ? 2 : 1)} µs`
}

export function ratio(a, b) {
  if (!a || !b) return '—'
  return `${(b / a).toFixed(b / a >= 100 ? 0 : 1)}×`
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
