/**
 * Leadership on PostgreSQL: a session advisory lock on a connection of its own. The lock is the leader's
 * while that connection lives, so an instance that dies (kill -9, a lost network) stops leading as soon
 * as the server notices the connection is gone, and a waiting instance, trying every RETRY_MS, leads next.
 */
import type pg from 'pg';
import { pgDriver } from '../store/postgres/pg-driver';
import type { Logger } from 'pino';
import type { Leadership, LeadershipFor } from '../../adapters/contract/leadership';

const RETRY_MS = 2000;

export function pgLeadership(url: string, logger: Logger, retryMs = RETRY_MS): LeadershipFor {
  return (name) => new PgLeadership(url, `penguin:${name}`, logger, retryMs);
}

class PgLeadership implements Leadership {
  private client: pg.Client | undefined;
  private released = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly url: string, private readonly key: string, private readonly logger: Logger, private readonly retryMs: number) {}

  acquire(onLost: () => void): Promise<void> {
    this.released = false;
    return new Promise((resolve, reject) => {
      const attempt = async () => {
        if (this.released) return reject(new Error('released before leading'));
        const client = new (pgDriver().Client)({ connectionString: this.url, application_name: `penguin-gateway lead ${this.key}`.slice(0, 63) });
        let leading = false;
        const dropped = () => {
          if (this.client !== client) return;
          this.client = undefined;
          client.end().catch(() => undefined);
          if (leading && !this.released) onLost();
        };
        client.on('error', dropped);
        client.on('end', dropped);
        try {
          await client.connect();
          this.client = client;
          const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [this.key]);
          if (r.rows[0]?.ok && !this.released) {
            leading = true;
            return resolve();
          }
        } catch (err) {
          this.logger.debug({ err, key: this.key }, 'leadership: the database is not reachable; trying again');
        }
        this.client = undefined;
        await client.end().catch(() => undefined);
        this.timer = setTimeout(() => void attempt(), this.retryMs);
        this.timer.unref();
      };
      void attempt();
    });
  }

  async release(): Promise<void> {
    this.released = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
