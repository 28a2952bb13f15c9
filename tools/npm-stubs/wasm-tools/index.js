'use strict'
// Stand-in for @napi-rs/wasm-tools (see ../README.md). Only napi build for wasm32 targets
// loads it, which this project never does; any use fails loudly.
const fail = () => {
  throw new Error('@napi-rs/wasm-tools is stubbed in this repository; see tools/npm-stubs/README.md')
}
module.exports = new Proxy({}, { get: fail })
