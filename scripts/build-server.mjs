/**
 * Bundles the gateway for `penguin-gateway start` (npm run build runs it after tsc), each output one ASCII
 * file that dist/src/gateway/bundle-loader.js loads:
 * - dist/src/gateway/cli.bundle.js: src/gateway/cli/main.ts with all of src/ and the packages a start loads;
 * - dist/src/vendor/<name>.js: each SDK that loads only once something configured needs it (grammY, Bolt
 *   with Slack's Web API and Socket Mode clients, Discord's @discordjs/ws and @discordjs/rest, openai),
 *   required from the main bundle at first use as before, one file instead of 150-700 modules each; and
 *   express, which the main bundle loads at start and Bolt shares.
 * One file instead of hundreds of modules is what makes a start, and an SDK's first use, fast (no
 * resolution, stat and read per module); each gets V8's code cache beside it (scripts/build-code-cache.js).
 * Native packages and the rarely used ones (pg, the MCP SDK, marked, jsdiff) stay in node_modules.
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import lazyModule from './lazy-module.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const gatewayDir = join(root, 'dist/src/gateway');
const vendorDir = join(root, 'dist/src/vendor');

// What a start loads, bundled with the gateway; everything else the package depends on stays outside.
const BUNDLED = ['zod', 'yaml', 'pino', 'prom-client', 'croner', 'smol-toml'];
// Vendor bundles by name, with the packages each exports. Slack's three share one file: Bolt uses the
// same Web API and Socket Mode classes the adapter does (errors are matched with instanceof). Discord's is
// its two transport packages (the adapter reads raw dispatches: no discord.js Client). Express is
// one of its own, loaded at start: the admin server and Bolt share it (~2.4 MB of heap for a second copy).
const VENDOR = {
  express: ['express'],
  grammy: ['grammy'],
  slack: ['@slack/bolt', '@slack/web-api', '@slack/socket-mode'],
  discord: ['@discordjs/ws', '@discordjs/rest'],
  openai: ['openai'],
};

// Packages an SDK (or, as vendor 'gateway', a package of the main bundle) requires as it loads but uses only
// on a path a gateway may never take: in its bundle each is a stand-in that runs the real one at first use
// (the build fails if one no longer matches).
// Socket Mode's client (Bolt loads it for every Slack app) brings its own undici, ~2.3 MB of heap once
// run, used only to open a Socket Mode connection; node-fetch (grammY's) runs whatwg-url and tr46's
// tables, ~2.3 MB, for Nodes without a URL class.
const LAZY = [
  { vendor: 'slack', importer: '@slack/socket-mode', module: 'undici' },
  { vendor: 'grammy', importer: 'node-fetch', module: 'whatwg-url' },
  // @discordjs/rest requires undici for its default transport; the adapter's requests go through Node's fetch.
  { vendor: 'discord', importer: '@discordjs/rest', module: 'undici' },
  // In the main bundle ('gateway'): prom-client's CPU metric requires the OpenTelemetry API at load, for the
  // exemplars the gateway never enables: its source and what running it builds, ~0.25 MB of an idle heap.
  { vendor: 'gateway', importer: 'prom-client', module: '@opentelemetry/api' },
];

// Statements a vendored package runs at load that cost an idle gateway memory and do nothing on Node 20, cut
// from its vendor bundle (the build fails if one is no longer found, word for word).
// @discordjs/rest fills in a FormData global for runtimes without one; on Node, reading the global loads Node's
// fetch implementation (undici, ~7 MB of RSS) at start, which nothing else there needs (core/http/plain-fetch.ts).
const CUT = [
  { vendor: 'discord', file: '@discordjs/rest/dist/index.js', statement: 'globalThis.FormData ??= import_undici2.FormData;' },
];

const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
const vendored = new Map(Object.entries(VENDOR).flatMap(([name, pkgs]) => pkgs.map((p) => [p, name])));
for (const name of [...BUNDLED, ...vendored.keys()]) if (!(name in pkg.dependencies)) throw new Error(`build-server: ${name} is not a dependency in package.json`);
const outside = Object.keys(pkg.dependencies).filter((d) => !BUNDLED.includes(d) && !vendored.has(d));
// iconv-lite comes with express's body parsers; its encoding tables load only for a non-UTF-8 body.
outside.push('iconv-lite');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Smaller source to hold in memory; names stay, so stack traces read as they do from the modules.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  legalComments: 'external',
  logLevel: 'warning',
};

/** The executable's loader as a bundle requires it: from the main bundle beside it, or from dist/src/vendor. */
const loaderFrom = (inMainBundle) => (inMainBundle ? './bundle-loader.js' : '../gateway/bundle-loader.js');

/**
 * A package of a vendor bundle is its entry in that file, loaded at first require by the loader the
 * executable already loaded (dist/src/gateway/bundle-loader.js, beside the main bundle): in the main
 * bundle every vendored package, in a vendor bundle those of the others (`own` is the one being built).
 */
function vendorPlugin(own) {
  const loader = loaderFrom(own === undefined);
  return {
    name: 'vendor',
    setup(b) {
      b.onResolve({ filter: /^\.{1,2}\/.*bundle-loader\.js$/, namespace: 'vendor' }, (args) => ({ path: args.path, external: true }));
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const top = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        if (!vendored.has(top) || vendored.get(top) === own) return undefined;
        if (top !== args.path) return { errors: [{ text: `${args.path}: only a vendored package's main entry is in its vendor bundle (scripts/build-server.mjs)` }] };
        return { path: args.path, namespace: 'vendor' };
      });
      b.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({
        contents: `const { loadBundle } = require(${JSON.stringify(loader)});
module.exports = loadBundle(require('node:path').join(__dirname, '../vendor/${vendored.get(args.path)}.js'))[${JSON.stringify(args.path)}];`,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * The loader is the executable's (dist/src/gateway/bundle-loader.js, which loaded the main bundle): gateway
 * code that imports it gets that module, with its state, not a copy inside the bundle.
 */
const loaderPlugin = {
  name: 'loader',
  setup(b) {
    b.onResolve({ filter: /(^|\/)bundle-loader$/ }, (args) => {
      if (!args.importer.startsWith(join(root, 'src/gateway/'))) return undefined;
      return { path: './bundle-loader.js', external: true };
    });
  },
};

const { lazyModuleSource, knownOf } = lazyModule;

/**
 * In a vendor bundle (or the main bundle, as vendor `gateway`), its LAZY modules as stand-ins
 * (scripts/lazy-module.js) that load the real one at first use from a bundle of its own in dist/src/vendor,
 * `<vendor>.<module>.js`: a module bundled inside would be source text held in the heap of every process that
 * loads the bundle (undici's is ~0.6 MB) whether it ever runs or not. `lazyFiles` gets the real module's path
 * per bundle file, for building those afterwards. What the module requires goes into its own bundle, so a
 * LAZY module must share no file with the rest of the bundle that requires it (a second copy would fail
 * `instanceof` across the two): the build checks it.
 */
const lazyApplied = new Set();
const lazyFiles = new Map();

function lazyPlugin(vendor) {
  const wanted = LAZY.filter((l) => l.vendor === vendor);
  const inPackage = (file, name) => file.includes(`${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`);
  return {
    name: 'lazy',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.namespace === 'lazy') return undefined;
        const lazy = wanted.find((l) => l.module === args.path && inPackage(args.importer, l.importer));
        if (!lazy) return undefined;
        lazyApplied.add(lazy);
        const real = createRequire(join(args.resolveDir, 'x.js')).resolve(args.path);
        const file = `${vendor}.${lazy.module.replace(/\//g, '-')}.js`;
        if (lazyFiles.has(file) && lazyFiles.get(file) !== real) throw new Error(`build-server: LAZY ${lazy.module} in ${vendor} resolves to two modules: ${lazyFiles.get(file)} and ${real}`);
        lazyFiles.set(file, real);
        return { path: real, namespace: 'lazy', pluginData: { file } };
      });
      // The loader is the executable's, as in vendorPlugin.
      b.onResolve({ filter: /bundle-loader\.js$/, namespace: 'lazy' }, (args) => ({ path: args.path, external: true }));
      b.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => {
        const { file } = args.pluginData;
        const load = `require(${JSON.stringify(loaderFrom(vendor === 'gateway'))}).loadBundle(require('node:path').join(__dirname, '../vendor', ${JSON.stringify(file)}))`;
        return { contents: lazyModuleSource(load, knownOf(createRequire(args.path)(args.path))), resolveDir: root, loader: 'js' };
      });
    },
  };
}

/** In a vendor bundle, its CUT statements removed from the files that hold them. */
const cutApplied = new Set();

function cutPlugin(vendor) {
  const wanted = CUT.filter((c) => c.vendor === vendor);
  return {
    name: 'cut',
    setup(b) {
      for (const cut of wanted) {
        const file = join(root, 'node_modules', ...cut.file.split('/'));
        const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        b.onLoad({ filter: new RegExp(`^${escaped}$`) }, async (args) => {
          const source = await readFile(args.path, 'utf8');
          const at = source.indexOf(cut.statement);
          if (at < 0 || source.indexOf(cut.statement, at + 1) >= 0) return undefined;
          cutApplied.add(cut);
          return { contents: source.slice(0, at) + source.slice(at + cut.statement.length), loader: 'js', resolveDir: dirname(args.path) };
        });
      }
    },
  };
}

const outputs = [join(gatewayDir, 'cli.bundle.js')];
const main = await build({
  ...common,
  entryPoints: [join(root, 'src/gateway/cli/main.ts')],
  outfile: outputs[0],
  metafile: true,
  // A trace's line and column in the bundle map back to src/ with it; the vendor bundles keep names only.
  sourcemap: 'external',
  external: outside.flatMap((d) => [d, `${d}/*`]),
  plugins: [vendorPlugin(undefined), loaderPlugin, lazyPlugin('gateway')],
});
/** The input files of each vendor bundle, by name ('gateway': the main bundle). */
const vendorInputs = new Map([['gateway', new Set(Object.keys(main.metafile.inputs))]]);
for (const [name, pkgs] of Object.entries(VENDOR)) {
  const outfile = join(vendorDir, `${name}.js`);
  outputs.push(outfile);
  const built = await build({
    ...common,
    stdin: { contents: pkgs.map((p) => `exports[${JSON.stringify(p)}] = require(${JSON.stringify(p)});`).join('\n'), resolveDir: root, sourcefile: `vendor-${name}.js` },
    outfile,
    external: ['iconv-lite'],
    metafile: true,
    plugins: [vendorPlugin(name), lazyPlugin(name), cutPlugin(name)],
  });
  vendorInputs.set(name, new Set(Object.keys(built.metafile.inputs)));
}
for (const [file, real] of lazyFiles) {
  const outfile = join(vendorDir, file);
  outputs.push(outfile);
  const built = await build({ ...common, entryPoints: [real], outfile, external: ['iconv-lite'], metafile: true });
  const shared = Object.keys(built.metafile.inputs).filter((f) => vendorInputs.get(file.split('.')[0]).has(f));
  if (shared.length > 0) throw new Error(`build-server: ${file} and its vendor bundle both hold ${shared.join(', ')}: a LAZY module must share no file with the SDK that requires it`);
}

// zod reached through its `z` namespace export keeps every export esbuild cannot see used, its 60-odd locales
// among them (~300 KB of source held in the heap of every start); `import * as z from 'zod'` lets it drop them.
const mainInputs = Object.entries(Object.values(main.metafile.outputs).find((o) => o.entryPoint)?.inputs ?? {});
const zodLocales = mainInputs.filter(([f, i]) => i.bytesInOutput > 0 && /node_modules\/zod\/.*\/locales\/(?!en\.|index\.)/.test(f)).map(([f]) => f);
if (zodLocales.length > 0) throw new Error(`build-server: the main bundle holds zod's locales (${zodLocales.length} files, e.g. ${zodLocales[0]}): import zod as \`import * as z from 'zod'\`, not \`import { z } from 'zod'\``);
// A package only the tests use (discord.js proves the fake Discord; its Client is not the adapter's) must not
// end up in the gateway through an import in src/.
const devOnly = Object.keys(pkg.devDependencies ?? {}).filter((d) => !(d in pkg.dependencies));
const devBundled = devOnly.filter((d) => mainInputs.some(([f, i]) => i.bytesInOutput > 0 && f.startsWith(`node_modules/${d}/`)));
if (devBundled.length > 0) throw new Error(`build-server: the main bundle holds development-only packages: ${devBundled.join(', ')} (src/ must not import them)`);

const uncut = CUT.filter((c) => !cutApplied.has(c));
if (uncut.length > 0) throw new Error(`build-server: CUT names a statement no longer found once in its file: ${uncut.map((c) => `${JSON.stringify(c.statement)} in ${c.file}`).join(', ')}`);
const unmatched = LAZY.filter((l) => !lazyApplied.has(l));
if (unmatched.length > 0) throw new Error(`build-server: LAZY names what no bundle requires: ${unmatched.map((l) => `${l.module} from ${l.importer} in ${l.vendor}`).join(', ')}`);

// bundle-loader.ts reads these as Latin-1: hold them to ASCII here.
for (const file of outputs) {
  const bytes = await readFile(file);
  const bad = bytes.findIndex((b) => b > 0x7f);
  if (bad < 0) continue;
  const near = bytes.subarray(Math.max(0, bad - 60), bad + 20).toString('utf8');
  // esbuild escapes non-ASCII in strings and templates but leaves regular expression literals as written.
  throw new Error(`build-server: ${file} has a non-ASCII byte at ${bad}, in: ${near}\nWrite that character as a \\u escape in the source.`);
}

// V8's code cache of each bundle, beside it: a load takes the compiled code from there (bundle-loader.ts).
execFileSync(process.execPath, [join(root, 'scripts/build-code-cache.js'), ...outputs], { stdio: 'inherit' });
