#!/usr/bin/env node
/**
 * Whether dist/ was built from the sources as they are now, decided by mtimes alone (cheap: no compiler).
 * `npm run build` calls `begin` first (drops dist/.build-stamp, marks the start time) and `end` last (the
 * mark becomes the stamp), so a failed build leaves no stamp and an edit made during a build is newer than
 * it. Inputs are every file and directory under src/ and scripts/, and under bench/ and test/, which tsc
 * compiles into dist/ as well (a directory's mtime changes when a file in it is added, removed or renamed),
 * plus tsconfig.json, package.json and package-lock.json. A tree without src/ (the installed package) is
 * always current. CLI: `node scripts/build-state.js begin|end|ensure` (`npm start`, `npm test`, `npm pack`).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { basename, join, relative } = require('node:path');

const STAMP = join('dist', '.build-stamp');
const PENDING = join('dist', '.build-pending');
const INPUT_DIRS = ['src', 'scripts', 'bench', 'test'];
const INPUT_FILES = ['tsconfig.json', 'package.json', 'package-lock.json'];

/** The first input newer than `since` (ms), or undefined. Stops at the first one found. */
function newerInput(root, since) {
  const newer = (p) => {
    try {
      return statSync(p).mtimeMs > since;
    } catch {
      return false;
    }
  };
  for (const f of INPUT_FILES) if (newer(join(root, f))) return f;
  const walk = (dir) => {
    if (newer(dir)) return dir;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      const hit = e.isDirectory() ? walk(p) : newer(p) ? p : undefined;
      if (hit) return hit;
    }
    return undefined;
  };
  for (const d of INPUT_DIRS) {
    const hit = existsSync(join(root, d)) ? walk(join(root, d)) : undefined;
    if (hit) return relative(root, hit);
  }
  return undefined;
}

/** `{ current: true }`, or `{ current: false, reason }` saying what makes the build out of date. */
function buildState(root) {
  if (!existsSync(join(root, 'src'))) return { current: true };
  let stamp;
  try {
    stamp = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return { current: false, reason: 'no finished build in dist/' };
  }
  const changed = newerInput(root, stamp);
  return changed === undefined ? { current: true } : { current: false, reason: `${changed} changed since the last build` };
}

function begin(root) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  rmSync(join(root, STAMP), { force: true });
  writeFileSync(join(root, PENDING), `${new Date().toISOString()}\n`);
}

function end(root) {
  if (existsSync(join(root, PENDING))) renameSync(join(root, PENDING), join(root, STAMP));
  else writeFileSync(join(root, STAMP), `${new Date().toISOString()}\n`);
}

/**
 * Builds (`npm run build`) when the build is not current; its output goes to stderr, so stdout carries only
 * what the gateway prints. Returns the exit code: 0 when current or built.
 */
function ensureBuilt(root, log = (s) => process.stderr.write(s)) {
  const state = buildState(root);
  if (state.current) return 0;
  log(`penguin-gateway: ${state.reason}: building first (npm run build)\n`);
  // Under `npm start` npm names itself; run that npm with this node rather than whatever PATH finds.
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm && basename(npm) === 'npm-cli.js' ? [process.execPath, [npm, 'run', 'build']] : ['npm', ['run', 'build']];
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status === 0) return 0;
  log(`penguin-gateway: the build failed (${r.error ? r.error.message : `exit ${r.status}`}); fix it and start again\n`);
  return r.status || 1;
}

module.exports = { buildState, begin, end, ensureBuilt, STAMP };

if (require.main === module) {
  const root = join(__dirname, '..');
  const cmd = process.argv[2];
  if (cmd === 'begin') begin(root);
  else if (cmd === 'end') end(root);
  else if (cmd === 'ensure') process.exitCode = ensureBuilt(root);
  else {
    process.stderr.write('usage: node scripts/build-state.js begin|end|ensure\n');
    process.exitCode = 2;
  }
}
