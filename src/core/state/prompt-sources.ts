/**
 * The agent files every new session's system prompt reads (AGENTS.md, the skill list with each SKILL.md's
 * front matter, the schedule names, the user memory index), read once and kept until they change: their
 * directories are watched (`fs.watch`, not keeping the process alive) and a source is read again at the
 * first prompt after an event in it. A source whose directory cannot be watched (no inotify slots, not
 * there yet) is read at every prompt instead, so a prompt never misses a change. `close()` stops watching.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { readIfExists } from './files';
import { ensureUserMemory, MEMORY_INDEX_FILE, readMemoryIndex, realOrResolved, temporaryWorkspaceOf, workspaceMemory, type SessionMemory } from './memory';
import { ID_RE } from './paths';
import { listScheduleNames } from './schedules';
import { listSkills, type SkillMetadata } from './skills';

export interface PromptSourcePaths {
  stateDir: string;
  agentsMd: string;
  skillsDir: string;
  scheduleDir: string;
  memoryDir: string;
  /** The project's `agents/` folder (temporary workspaces live under it). */
  agentsDir: string;
}

/** One cached value; `stale()` makes the next `get()` read it again. */
class Cached<T> {
  private value?: Promise<T>;
  private generation = 0;
  private loadedAt = -1;

  constructor(private readonly load: () => Promise<T>, private readonly watched: () => boolean) {}

  get(): Promise<T> {
    if (!this.watched()) return this.load();
    if (!this.value || this.loadedAt !== this.generation) {
      this.loadedAt = this.generation;
      this.value = this.load();
      // A failed read is not kept: the next prompt tries again.
      this.value.catch(() => {
        if (this.loadedAt === this.generation) this.loadedAt = -1;
      });
    }
    return this.value;
  }

  stale(): void {
    this.generation++;
  }
}

export class PromptSources {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Folders not there at their last watch: tried again only once their parent's watch announces them. */
  private readonly missing = new Set<string>();
  private closed = false;
  private readonly agentsMdValue: Cached<string>;
  private readonly skillsValue: Cached<SkillMetadata[]>;
  private readonly schedulesValue: Cached<string[]>;
  private readonly userIndexValue: Cached<{ dir: string; index: string }>;
  private agentsDirReal?: Promise<string>;
  /** Real paths of the folders fresh workspaces are made in (one per agent). */
  private readonly parentsReal = new Map<string, Promise<string>>();

  constructor(private readonly p: PromptSourcePaths) {
    this.agentsMdValue = new Cached(async () => (await readIfExists(p.agentsMd)) ?? '', () => this.watching(p.stateDir));
    this.skillsValue = new Cached(() => this.loadSkills(), () => this.watching(p.skillsDir));
    this.schedulesValue = new Cached(() => listScheduleNames(p.scheduleDir), () => this.watching(p.stateDir) && this.watchingIfPresent(p.scheduleDir));
    const userDir = join(p.memoryDir, 'user');
    this.userIndexValue = new Cached(async () => {
      const dir = await ensureUserMemory(p.memoryDir);
      return { dir, index: await readMemoryIndex(dir) };
    }, () => this.watching(userDir, (name) => name === MEMORY_INDEX_FILE));
  }

  agentsMd(): Promise<string> {
    return this.agentsMdValue.get();
  }

  skills(): Promise<SkillMetadata[]> {
    return this.skillsValue.get();
  }

  scheduleNames(): Promise<string[]> {
    return this.schedulesValue.get();
  }

  /**
   * The session's memory: the shared user index, plus the workspace's own scope for a persistent workspace.
   * `fresh`: the workspace is a folder made just now for this session (not a link), so its real path is its
   * parent's (resolved once) plus its name, with no realpath per session.
   */
  async memoryFor(workspaceDir: string, fresh = false): Promise<SessionMemory> {
    const user = await this.userIndexValue.get();
    const memory: SessionMemory = { userDir: user.dir, userIndex: user.index };
    this.agentsDirReal ??= realOrResolved(this.p.agentsDir);
    const real = fresh ? join(await this.parentReal(dirname(workspaceDir)), basename(workspaceDir)) : undefined;
    if (await temporaryWorkspaceOf(await this.agentsDirReal, workspaceDir, real)) return memory;
    memory.workspace = await workspaceMemory(this.p.memoryDir, workspaceDir);
    return memory;
  }

  private parentReal(dir: string): Promise<string> {
    let p = this.parentsReal.get(dir);
    if (!p) {
      p = realOrResolved(dir);
      this.parentsReal.set(dir, p);
    }
    return p;
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /**
   * Skills, then one watch per skill directory (its SKILL.md), dropping those of removed skills. A skill
   * first watched here was read before its watch began, so the next prompt reads the list once more.
   */
  private async loadSkills(): Promise<SkillMetadata[]> {
    const skills = await listSkills(this.p.skillsDir);
    const dirs = new Set(skills.map((s) => join(this.p.skillsDir, s.name)));
    for (const dir of [...this.watchers.keys()]) {
      if (this.inSkills(dir) && !dirs.has(dir)) this.unwatch(dir);
    }
    let added = false;
    for (const dir of dirs) {
      if (this.watchers.has(dir)) continue;
      added = this.watching(dir) || added;
    }
    if (added) this.skillsValue.stale();
    return skills;
  }

  private inSkills(dir: string): boolean {
    return dir.startsWith(this.p.skillsDir + sep);
  }

  /** Whether `dir` is watched (starting the watch on first ask); false means "read every time". */
  private watching(dir: string, relevant: (name: string) => boolean = () => true): boolean {
    if (this.watchers.has(dir)) return true;
    if (this.closed) return false;
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (_event, name) => this.changed(dir, name === null ? null : String(name), relevant));
    } catch {
      return false;
    }
    w.on('error', () => {
      this.unwatch(dir);
      this.staleAll();
    });
    this.watchers.set(dir, w);
    return true;
  }

  /**
   * The schedule folder may appear later: until it does, the state directory's watch announces it (a
   * watch of a missing folder is not tried again at every prompt: each try is a failed syscall and an error).
   */
  private watchingIfPresent(dir: string): boolean {
    if (!this.missing.has(dir) && !this.watching(dir) && !this.closed && !existsSync(dir)) this.missing.add(dir);
    return true;
  }

  private unwatch(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  private changed(dir: string, name: string | null, relevant: (name: string) => boolean): void {
    if (name !== null && !relevant(name)) return;
    const p = this.p;
    if (dir === p.stateDir) {
      if (name === null || name === 'AGENTS.md') this.agentsMdValue.stale();
      if (name === null || name === 'schedule') {
        this.unwatch(p.scheduleDir);
        this.missing.delete(p.scheduleDir);
        this.schedulesValue.stale();
      }
      if (name === null || name === 'skills') this.skillsValue.stale();
    } else if (dir === p.scheduleDir) this.schedulesValue.stale();
    else if (dir === p.skillsDir || this.inSkills(dir)) {
      if (dir !== p.skillsDir || name === null || ID_RE.test(name)) this.skillsValue.stale();
    } else this.userIndexValue.stale();
  }

  private staleAll(): void {
    // A watch failed: what it would have announced meanwhile is unknown.
    this.missing.clear();
    for (const v of [this.agentsMdValue, this.skillsValue, this.schedulesValue, this.userIndexValue]) v.stale();
  }
}
