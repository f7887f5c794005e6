/**
 * Path confinement for the tools of one Session (gateway.md §6). A path is `inside` when it lies in one of
 * the Session's roots (workspace, scratchpad, …), `forbidden` when it lies in a forbidden root (the host's
 * data root) that no deeper root carves out, and `outside` otherwise. Paths are compared after resolving
 * symlinks (of the longest existing ancestor, for files that do not exist yet), so a link cannot smuggle a
 * path in or out. Where one directory is both, forbidden wins.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ToolConfinement, ToolReach } from '../interfaces';

/** Real path of `p`, or of its longest existing ancestor joined with the rest (the file may not exist yet). */
export async function realPathOf(p: string): Promise<string> {
  const abs = path.resolve(p);
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      const real = await fs.realpath(cur);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return abs;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

const within = (child: string, root: string) => child === root || child.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

export class PathConfinement {
  private resolved?: Promise<{ roots: string[]; forbidden: string[] }>;

  constructor(private readonly spec: ToolConfinement) {}

  /** Where `absPath` lies. */
  async reach(absPath: string): Promise<ToolReach> {
    const { roots, forbidden } = await this.roots();
    const real = await realPathOf(absPath);
    const longest = (list: string[]) => list.filter((r) => within(real, r)).reduce((n, r) => Math.max(n, r.length), -1);
    const inRoot = longest(roots);
    const inForbidden = longest(forbidden);
    if (inForbidden >= 0 && inForbidden >= inRoot) return 'forbidden';
    return inRoot >= 0 ? 'inside' : 'outside';
  }

  private roots(): Promise<{ roots: string[]; forbidden: string[] }> {
    this.resolved ??= (async () => ({
      roots: await Promise.all(this.spec.roots.map(realPathOf)),
      forbidden: await Promise.all(this.spec.forbidden.map(realPathOf)),
    }))();
    return this.resolved;
  }
}

/** The refusal a tool gives for a path in a forbidden root. */
export const forbiddenPathMessage = (p: string) =>
  `Refused: ${p} is inside the host's protected data directory (traces, databases, other agents' state); no tool may access it.`;
