#!/usr/bin/env node
'use strict';
// msm-cuda command line: see `msm-cuda --help` (source: lib/cli.ts).
require('../dist/lib/cli.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
