// @ts-check
'use strict'
// A pending exec/wait keeps Node alive like any pending I/O, and keeps its run reachable: the
// native side reaches a run only through a WeakRef (lib/run.js), so a run nobody holds is
// collected, but never while a leg of it is in flight (its result would have nowhere to go).
// Parked cells keep neither (the native port is weak). One idle timer, referenced only while
// legs are in flight.

let pendingLegs = 0
const keepAlive = setInterval(() => {}, 1 << 30)
keepAlive.unref()
/** @type {Map<object, number>} each run with legs in flight, and how many */
const holding = new Map()

/** @param {object} run */
function legStarted(run) {
  holding.set(run, (holding.get(run) ?? 0) + 1)
  if (pendingLegs++ === 0) keepAlive.ref()
}

/** @param {object} run */
function legEnded(run) {
  const left = (holding.get(run) ?? 1) - 1
  if (left === 0) holding.delete(run)
  else holding.set(run, left)
  if (--pendingLegs === 0) keepAlive.unref()
}

module.exports = { legStarted, legEnded }
