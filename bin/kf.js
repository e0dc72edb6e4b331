#!/usr/bin/env node
'use strict';
// Entry point of the `kf` command. Runs the compiled library (npm run build); under
// development, KF_TSX=1 runs the TypeScript sources directly through tsx.
const path = require('node:path');
const fs = require('node:fs');
const root = path.resolve(__dirname, '..');
let mainPath = path.join(root, 'dist', 'lib', 'cli', 'main.js');
if (process.env.KF_TSX === '1') {
  require('tsx/cjs');
  mainPath = path.join(root, 'lib', 'cli', 'main.ts');
} else if (!fs.existsSync(mainPath)) {
  console.error('kf: the library is not built yet -- run `npm run build` (or `npm test`, which builds first)');
  process.exit(1);
}
require(mainPath)
  .main(process.argv.slice(2))
  .then(
    (code) => process.exit(code),
    (e) => {
      console.error('kf: internal error:', e && e.stack ? e.stack : e);
      process.exit(70);
    },
  );
