/**
 * `node scripts/build-code-cache.js <bundle>…` (build-server.mjs runs it after bundling): writes V8's
 * code cache of each bundle beside it (`<bundle>.v8cache`, dist/src/gateway/bundle-loader.js
 * `makeCodeCache`), in this fresh process under the V8 flags the executable sets before it loads a bundle,
 * so that a start's loads can use them. Node, V8 and the flags must be those of the process that runs
 * the gateway (NODE_OPTIONS included): a cache made under others is refused there, and the bundle compiled.
 */
'use strict';
const { join } = require('node:path');

const gateway = join(__dirname, '../dist/src/gateway');
require(join(gateway, 'cli.js')).setV8Flags();
const { makeCodeCache } = require(join(gateway, 'bundle-loader.js'));
for (const bundle of process.argv.slice(2)) makeCodeCache(bundle);
