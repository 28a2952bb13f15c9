'use strict'
// Stand-in for @napi-rs/cross-toolchain (see ../README.md). Only napi build --use-napi-cross (downloads a cross-compilation toolchain)
// loads it, which this project never does; any use fails loudly.
const fail = () => {
  throw new Error('@napi-rs/cross-toolchain is stubbed in this repository; see tools/npm-stubs/README.md')
}
module.exports = new Proxy({}, { get: fail })
