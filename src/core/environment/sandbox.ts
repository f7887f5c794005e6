/**
 * The command sandbox (gateway.md §6): how a shell command is launched under bubblewrap. The sandbox sees
 * the system directories read-only, its writable and read-only binds, empty tmpfs over hidden paths that
 * lie under a bind, a private /tmp, /proc and /dev, and nothing else of the host (the data root, the
 * gateway's home and other workspaces do not exist in it). Mounts go parents first so a deeper bind or
 * tmpfs overlays its parent. `probeBubblewrap` answers whether bwrap can run here at all.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import type { CommandSandbox } from '../interfaces';

/** Read-only in every sandbox: what programs need to run (binaries, libraries, configuration). */
export const SANDBOX_SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;

type BubblewrapSandbox = Extract<CommandSandbox, { kind: 'bubblewrap' }>;

let systemArgs: string[] | undefined;

/** The system part of every command line, computed once: symlinked dirs (merged /usr) stay symlinks. */
function systemMountArgs(): string[] {
  if (systemArgs) return systemArgs;
  const args: string[] = [];
  for (const dir of SANDBOX_SYSTEM_DIRS) {
    try {
      const st = lstatSync(dir);
      if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
      else if (st.isDirectory()) args.push('--ro-bind', dir, dir);
    } catch {
      // not on this system
    }
  }
  // A resolv.conf managed elsewhere (systemd-resolved) must be visible for DNS to work.
  try {
    const real = realpathSync('/etc/resolv.conf');
    if (!SANDBOX_SYSTEM_DIRS.some((d) => real.startsWith(`${d}/`))) args.push('--ro-bind', real, real);
  } catch {
    // no resolver configuration
  }
  systemArgs = args;
  return args;
}

const depth = (p: string) => p.split(path.sep).filter(Boolean).length;
const under = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** bwrap's arguments up to (not including) the command itself. */
export function bubblewrapArgs(spec: BubblewrapSandbox, cwd: string): string[] {
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (!spec.network) args.push('--unshare-net');
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', ...systemMountArgs());
  const bound = [...spec.writable, ...spec.readonly].map((p) => path.resolve(p));
  const mounts = [
    ...spec.writable.map((p) => ({ at: path.resolve(p), args: ['--bind', path.resolve(p), path.resolve(p)] })),
    ...spec.readonly.map((p) => ({ at: path.resolve(p), args: ['--ro-bind-try', path.resolve(p), path.resolve(p)] })),
    ...spec.hidden
      .map((p) => path.resolve(p))
      .filter((h) => bound.some((b) => under(h, b) && h !== b))
      .map((h) => ({ at: h, args: ['--tmpfs', h] })),
  ];
  // Parents first; at equal depth a tmpfs goes last, so hiding wins over a bind of the same path.
  mounts.sort((a, b) => depth(a.at) - depth(b.at) || Number(a.args[0] === '--tmpfs') - Number(b.args[0] === '--tmpfs'));
  for (const m of mounts) args.push(...m.args);
  args.push('--chdir', cwd);
  return args;
}

/** How a command is started: the program and its argv. */
export interface Launch {
  file: string;
  args: string[];
}

/** Launch of `<shell> -lc <cmd>` in `cwd`, under the sandbox when there is one; throws when the sandbox refuses. */
export function launchCommand(sandbox: CommandSandbox | undefined, shell: string, cmd: string, cwd: string): Launch {
  if (!sandbox) return { file: shell, args: ['-lc', cmd] };
  if (sandbox.kind === 'refuse') throw new Error(`commands are not run: ${sandbox.reason}`);
  return { file: sandbox.binary, args: [...bubblewrapArgs(sandbox, cwd), '--', shell, '-lc', cmd] };
}

/** The first executable `bwrap` on PATH. */
export function findBubblewrap(pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

export type SandboxProbe = { ok: true; binary: string } | { ok: false; reason: string };

/** Runs one trivial command the way real ones run; `ok` only if bwrap could build the sandbox. */
export function probeBubblewrap(binary: string | undefined, timeoutMs = 5_000): Promise<SandboxProbe> {
  if (!binary) return Promise.resolve({ ok: false, reason: 'bwrap (Debian/Ubuntu package "bubblewrap") is not installed' });
  const spec: BubblewrapSandbox = { kind: 'bubblewrap', binary, network: false, writable: [], readonly: [], hidden: [] };
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(binary, [...bubblewrapArgs(spec, '/'), '--', '/bin/sh', '-c', 'exit 0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString('utf8')).slice(-500);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: `${binary} could not be started: ${err.message}` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ok: true, binary });
      else resolve({ ok: false, reason: `${binary} cannot create a sandbox here (${signal ? `signal ${signal}` : `exit ${code}`}): ${stderr.trim() || 'no message'}` });
    });
  });
}
