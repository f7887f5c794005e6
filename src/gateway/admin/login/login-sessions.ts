/**
 * LoginSessions: the dashboard's logins, in memory (a restart logs everyone out, which is the safe side).
 * `create()` returns a random session id for the cookie and a random CSRF token; only the sha256 of the id
 * is kept, so a heap dump does not hand out live cookies. Sessions expire `ttlMs` after login (absolute,
 * not sliding); at most `max` live at once, the oldest dropped first.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface LoginSession {
  csrf: string;
  createdAt: number;
  expiresAt: number;
  /** `token` or `password`: how the operator logged in, for the session endpoint. */
  via: 'token' | 'password';
}

export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const DEFAULT_MAX_SESSIONS = 100;

const digest = (id: string) => createHash('sha256').update(id).digest('hex');

export class LoginSessions {
  private readonly byHash = new Map<string, LoginSession>();
  readonly ttlMs: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(o: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.ttlMs = o.ttlMs ?? DEFAULT_SESSION_TTL_MS;
    this.max = o.max ?? DEFAULT_MAX_SESSIONS;
    this.now = o.now ?? Date.now;
  }

  create(via: LoginSession['via']): { id: string; session: LoginSession } {
    const id = randomBytes(32).toString('base64url');
    const at = this.now();
    const session: LoginSession = { csrf: randomBytes(32).toString('base64url'), createdAt: at, expiresAt: at + this.ttlMs, via };
    this.prune(at);
    // Map order is insertion order: the first key is the oldest login.
    while (this.byHash.size >= this.max) this.byHash.delete(this.byHash.keys().next().value as string);
    this.byHash.set(digest(id), session);
    return { id, session };
  }

  /** The live session of a cookie value; an expired one is forgotten on the way. */
  get(id: string | undefined): LoginSession | undefined {
    if (!id) return undefined;
    const h = digest(id);
    const s = this.byHash.get(h);
    if (!s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.byHash.delete(h);
      return undefined;
    }
    return s;
  }

  delete(id: string | undefined): boolean {
    return id ? this.byHash.delete(digest(id)) : false;
  }

  get size(): number {
    return this.byHash.size;
  }

  private prune(now: number): void {
    for (const [h, s] of this.byHash) if (s.expiresAt <= now) this.byHash.delete(h);
  }
}

/** Constant-time comparison of a presented CSRF token with the session's. */
export function csrfMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
