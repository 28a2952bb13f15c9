#!/usr/bin/env node
// @ts-check
'use strict'
// `npx code-mode run <cell>` and `npx code-mode check <cell>`: see `code-mode --help`.
require('../lib/cli.js')
  .main(process.argv.slice(2))
  .then((status) => {
    process.exitCode = status
  })
