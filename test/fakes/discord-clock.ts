/**
 * Clock and snowflake ids for the fake Discord platform. `ManualClock` (the shared one) moves only when
 * a test calls `advance`, so interaction deadlines, token lifetimes, rate-limit windows and message ages
 * are exact. Snowflakes carry the clock's time like Discord's (17–19 digits, which @discordjs/rest needs
 * to find the major parameter of a route) and strictly increase.
 */
import type { FakeClock } from './server-clock';

export { ManualClock } from './server-clock';

export const DISCORD_EPOCH = 1_420_070_400_000;

export class SnowflakeFactory {
  private lastMs = 0;
  private increment = 0;

  constructor(private readonly clock: FakeClock, private readonly worker = 1) {}

  next(): string {
    let ms = Math.max(this.clock.now(), DISCORD_EPOCH + 86_400_000);
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.increment++;
      if (this.increment > 4095) {
        ms = ++this.lastMs;
        this.increment = 0;
      }
    } else {
      this.increment = 0;
    }
    this.lastMs = ms;
    return ((BigInt(ms - DISCORD_EPOCH) << 22n) | (BigInt(this.worker & 31) << 17n) | BigInt(this.increment)).toString();
  }
}

/** Milliseconds since the Unix epoch encoded in a snowflake. */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> 22n) + DISCORD_EPOCH;
}
