// Process warnings a test expects: captured while `body` runs, instead of being printed by Node's
// own listener (removed meanwhile, and put back after), and returned for the test to assert on.
export async function captureWarnings<T>(body: () => Promise<T>): Promise<{ value: T; warnings: Error[] }> {
  const warnings: Error[] = []
  const capture = (warning: Error) => warnings.push(warning)
  const printers = process.listeners('warning')
  process.removeAllListeners('warning')
  process.on('warning', capture)
  try {
    const value = await body()
    // process.emitWarning emits on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
    return { value, warnings }
  } finally {
    process.off('warning', capture)
    for (const printer of printers) process.on('warning', printer)
  }
}
