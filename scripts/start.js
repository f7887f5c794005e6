#!/usr/bin/env node
/**
 * `npm start`: runs the built gateway in this process (`penguin-gateway start`; `npm start -- --config f`
 * passes its arguments on).
 * When the sources are newer than the last build (scripts/build-state.js) it runs `npm run build` first,
 * so a start after an edit runs the edited code; when the build is current it compiles nothing.
 */
'use strict';
const { join } = require('node:path');
const { ensureBuilt } = require('./build-state');

const root = join(__dirname, '..');
const code = ensureBuilt(root);
if (code !== 0) process.exitCode = code;
else require(join(root, 'dist/src/gateway/cli.js')).main(['start', ...process.argv.slice(2)]);
