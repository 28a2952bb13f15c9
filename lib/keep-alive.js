// @ts-check
'use strict'
// A pending exec/wait keeps Node alive like any pending I/O; parked cells do not (the native
// port is weak). One idle timer, referenced only while legs are in flight.

let pendingLegs = 0
const keepAlive = setInterval(() => {}, 1 << 30)
keepAlive.unref()

function legStarted() {
  if (pendingLegs++ === 0) keepAlive.ref()
}

function legEnded() {
  if (--pendingLegs === 0) keepAlive.unref()
}

module.exports = { legStarted, legEnded }
