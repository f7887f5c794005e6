/**
 * Builds the dashboard front end (src/dashboard) into dist/dashboard with esbuild: app.js (every page,
 * Preact + Chart.js + marked + DOMPurify in one bundle), login.js, style.css and the two HTML shells the
 * gateway serves. Type-checking is `tsc -p src/dashboard` (npm run build runs both). No CDN, no runtime
 * build server: the gateway serves these files as they are.
 */
import { build } from 'esbuild';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src/dashboard');
const out = join(root, 'dist/dashboard');

const shell = (title, script) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · penguin-gateway</title>
<link rel="stylesheet" href="/assets/style.css">
</head>
<body>
<div id="root"></div>
<script src="${script}"></script>
</body>
</html>
`;

await mkdir(out, { recursive: true });
await build({
  entryPoints: { app: join(src, 'app/main.tsx'), login: join(src, 'login/main.tsx') },
  outdir: out,
  bundle: true,
  format: 'iife',
  target: ['chrome120', 'firefox120', 'safari16'],
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
await copyFile(join(src, 'style.css'), join(out, 'style.css'));
await writeFile(join(out, 'app.html'), shell('Dashboard', '/assets/app.js'));
await writeFile(join(out, 'login.html'), shell('Log in', '/assets/login.js'));
