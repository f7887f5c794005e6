/**
 * Bundles the gateway for `penguin-gateway start` (npm run build runs it after tsc): src/gateway/cli/main.ts
 * and everything it imports from src/ and from the packages a start loads, in one ASCII file,
 * dist/src/gateway/cli.bundle.js, which dist/src/gateway/cli.js loads. One file instead of ~740 modules
 * is what makes the start fast (no resolution, stat and read per module). Packages that load only when
 * something configured needs them (platform SDKs, the model and MCP SDKs, pg, marked, jsdiff) and native
 * ones stay outside, required from node_modules at first use as before.
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist/src/gateway/cli.bundle.js');

// What a start loads; everything else the package depends on stays a require() of node_modules.
const BUNDLED = new Set(['zod', 'yaml', 'express', 'pino', 'prom-client', 'croner', 'smol-toml']);
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const outside = Object.keys(pkg.dependencies).filter((d) => !BUNDLED.has(d));
for (const name of BUNDLED) if (!(name in pkg.dependencies)) throw new Error(`build-server: ${name} is not a dependency in package.json`);
// iconv-lite comes with express's body parsers; its encoding tables load only for a non-UTF-8 body.
outside.push('iconv-lite');

const result = await build({
  entryPoints: [join(root, 'src/gateway/cli/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Smaller source to hold in memory; names stay, so stack traces read as they do from the modules.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  legalComments: 'external',
  sourcemap: 'external',
  external: outside.flatMap((d) => [d, `${d}/*`]),
  logLevel: 'warning',
});
if (result.errors.length) process.exit(1);
// dist/src/gateway/cli.js reads the bundle as Latin-1 (bundle-loader.ts): hold it to ASCII here.
const bytes = await readFile(outfile);
const bad = bytes.findIndex((b) => b > 0x7f);
if (bad >= 0) {
  const near = bytes.subarray(Math.max(0, bad - 60), bad + 20).toString('utf8');
  // esbuild escapes non-ASCII in strings and templates but leaves regular expression literals as written.
  throw new Error(`build-server: ${outfile} has a non-ASCII byte at ${bad}, in: ${near}\nWrite that character as a \\u escape in the source.`);
}
