/**
 * LoginThrottle: failed logins are counted in a fixed window (default 10 a minute for the whole listener,
 * since the dashboard has one operator); past that every login attempt is refused with 429 until the window
 * ends, so a token or password cannot be guessed at network speed. A success does not reset the count.
 */
export class LoginThrottle {
  private windowStart = 0;
  private failures = 0;

  constructor(private readonly o: { max?: number; windowMs?: number; now?: () => number } = {}) {}

  private get now(): number {
    return (this.o.now ?? Date.now)();
  }

  /** Milliseconds until attempts are taken again; 0 when one may be tried now. */
  blockedFor(): number {
    const now = this.now;
    const windowMs = this.o.windowMs ?? 60_000;
    if (now - this.windowStart >= windowMs) {
      this.windowStart = now;
      this.failures = 0;
    }
    return this.failures >= (this.o.max ?? 10) ? this.windowStart + windowMs - now : 0;
  }

  failed(): void {
    this.failures++;
  }
}
