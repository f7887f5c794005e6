/**
 * Memory scopes (engine.md §6.4): `memory/user/` always; `memory/<safe-basename>-<8 hex sha256(realpath)>/`
 * for a persistent Workspace (none for a temporary `workspaces/tmp-…` one). Each scope keeps a `MEMORY.md`
 * index; only the indexes are injected, capped at 200 lines and then 25000 characters, with a note telling
 * the model to open the file for the rest. The files are never modified by the cap.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { writeIfAbsent } from './files';
import { EMPTY_MEMORY_INDEX_NOTE } from './prompts/section-prompts';

export const MEMORY_INDEX_FILE = 'MEMORY.md';
export const USER_SCOPE = 'user';
export const WORKSPACE_MARKER_FILE = '.workspace';
export const MEMORY_INDEX_MAX_LINES = 200;
export const MEMORY_INDEX_MAX_CHARS = 25000;

export interface SessionMemory {
  userDir: string;
  userIndex: string;
  workspace?: { key: string; dir: string; index: string };
}

/** `<safe-basename>-<first 8 hex of sha256(realPath)>`; the hyphen keeps it apart from the `user` scope. */
export function workspaceMemoryKey(realPath: string): string {
  const hash = createHash('sha256').update(realPath).digest('hex').slice(0, 8);
  const base = basename(realPath)
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .toLowerCase();
  return `${base || 'workspace'}-${hash}`;
}

/** `p`'s real path, or `p` resolved when it has none (it does not exist, or cannot be read). */
export async function realOrResolved(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch {
    return resolve(p);
  }
}

/** True for a Workspace the engine made itself: `<project>/agents/<agent>/workspaces/<id>`. */
export async function isTemporaryWorkspace(agentsDir: string, workspaceDir: string): Promise<boolean> {
  return temporaryWorkspaceOf(await realOrResolved(agentsDir), workspaceDir);
}

/** `isTemporaryWorkspace` with the real path of `agents/` (and perhaps the workspace's) already known (a caller that asks often). */
export async function temporaryWorkspaceOf(agentsDirReal: string, workspaceDir: string, workspaceReal?: string): Promise<boolean> {
  const rel = relative(agentsDirReal, workspaceReal ?? (await realOrResolved(workspaceDir)));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  const parts = rel.split(sep);
  return parts.length >= 3 && parts[1] === 'workspaces';
}

/** A scope's MEMORY.md, '' when there is none. */
export async function readMemoryIndex(dir: string): Promise<string> {
  try {
    return await readFile(join(dir, MEMORY_INDEX_FILE), 'utf8');
  } catch {
    return '';
  }
}

export async function ensureUserMemory(memoryDir: string): Promise<string> {
  const dir = join(memoryDir, USER_SCOPE);
  await mkdir(dir, { recursive: true });
  await writeIfAbsent(join(dir, MEMORY_INDEX_FILE), '');
  return dir;
}

/**
 * The Session's memory, creating the scope directories and empty indexes on the way. `agentsDir` is the
 * project's `agents/` folder (to recognise temporary Workspaces).
 */
export async function resolveSessionMemory(memoryDir: string, agentsDir: string, workspaceDir: string): Promise<SessionMemory> {
  const userDir = await ensureUserMemory(memoryDir);
  const memory: SessionMemory = { userDir, userIndex: await readMemoryIndex(userDir) };
  if (await isTemporaryWorkspace(agentsDir, workspaceDir)) return memory;
  memory.workspace = await workspaceMemory(memoryDir, workspaceDir);
  return memory;
}

/** A persistent workspace's memory scope, created with an empty index and its `.workspace` marker. */
export async function workspaceMemory(memoryDir: string, workspaceDir: string): Promise<NonNullable<SessionMemory['workspace']>> {
  const real = await realOrResolved(workspaceDir);
  const key = workspaceMemoryKey(real);
  const dir = join(memoryDir, key);
  await mkdir(dir, { recursive: true });
  await writeIfAbsent(join(dir, MEMORY_INDEX_FILE), '');
  const marker = join(dir, WORKSPACE_MARKER_FILE);
  const current = await readFile(marker, 'utf8').catch(() => undefined);
  if (current !== `${real}\n`) await writeFile(marker, `${real}\n`, 'utf8');
  return { key, dir, index: await readMemoryIndex(dir) };
}

/** An index as injected: trimmed, capped by lines then characters, or the empty note. */
export function indexForPrompt(index: string): string {
  const text = index.replace(/\r\n?/g, '\n').trim();
  if (text === '') return EMPTY_MEMORY_INDEX_NOTE;
  const lines = text.split('\n');
  let kept = lines.slice(0, MEMORY_INDEX_MAX_LINES).join('\n');
  if (kept.length > MEMORY_INDEX_MAX_CHARS) {
    const cut = kept.lastIndexOf('\n', MEMORY_INDEX_MAX_CHARS);
    kept = kept.slice(0, cut > 0 ? cut : MEMORY_INDEX_MAX_CHARS);
  }
  if (kept.length === text.length) return text;
  const keptLines = kept.split('\n').length;
  const why = keptLines < lines.length ? `${keptLines} of ${lines.length} lines shown` : `first ${MEMORY_INDEX_MAX_CHARS} characters shown`;
  return `${kept}\n(index cut: ${why}; open ${MEMORY_INDEX_FILE} for the rest)`;
}
