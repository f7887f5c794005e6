/**
 * The mailbox between instances on PostgreSQL: a letter is a `cluster_mailbox` row (so nothing is lost
 * when its receiver is down: a survivor inherits the letters of the instance it takes over), and a NOTIFY
 * on the receiver's channel wakes it. One dedicated connection LISTENs and reconnects after a drop; a
 * slow poll drains letters whose NOTIFY was missed meanwhile. Letters are handed over in order.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { pgDriver } from '../store/postgres/pg-driver';
import type { Logger } from 'pino';
import type { ClusterStore, MailRow } from '../store/types';

export interface Bus {
  send(to: string, kind: string, body: unknown): Promise<void>;
  start(onLetter: (letter: MailRow) => void): Promise<void>;
  stop(): Promise<void>;
}

/** A channel name PostgreSQL accepts as an identifier, whatever the instance id. */
export const channelOf = (instanceId: string) => `penguin_${createHash('sha256').update(instanceId).digest('hex').slice(0, 24)}`;

export interface PgBusOptions {
  url: string;
  store: ClusterStore;
  instanceId: string;
  logger: Logger;
  /** How often letters are looked for without a NOTIFY; default 1000 ms. */
  pollMs?: number;
}

export class PgBus implements Bus {
  private client: pg.Client | undefined;
  private onLetter: ((l: MailRow) => void) | undefined;
  private stopped = false;
  private draining: Promise<void> | undefined;
  private again = false;
  private poll: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly o: PgBusOptions) {}

  async start(onLetter: (letter: MailRow) => void): Promise<void> {
    this.onLetter = onLetter;
    await this.connect();
    this.poll = setInterval(() => this.drain(), this.o.pollMs ?? 1000);
    this.poll.unref();
    this.drain();
  }

  async send(to: string, kind: string, body: unknown): Promise<void> {
    await this.o.store.postMail({ to_instance: to, from_instance: this.o.instanceId, kind, body: JSON.stringify(body) });
    // The row is the letter; a lost NOTIFY only delays it until the receiver's next poll.
    await this.client?.query('SELECT pg_notify($1, $2)', [channelOf(to), '']).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll) clearInterval(this.poll);
    if (this.retry) clearTimeout(this.retry);
    await this.draining;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new (pgDriver().Client)({ connectionString: this.o.url, application_name: `penguin-gateway ${this.o.instanceId} bus` });
    client.on('notification', () => this.drain());
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`LISTEN ${channelOf(this.o.instanceId)}`);
    this.client = client;
  }

  private lost(client: pg.Client, err?: Error): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    this.o.logger.warn({ err: err?.message }, 'cluster: the mailbox connection dropped; reconnecting (letters wait in the database)');
    client.end().catch(() => undefined);
    const again = () => {
      if (this.stopped) return;
      this.connect().then(() => this.drain(), () => (this.retry = setTimeout(again, 1000)));
    };
    this.retry = setTimeout(again, 200);
  }

  private drain(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = (async () => {
      do {
        this.again = false;
        const letters = await this.o.store.takeMail(this.o.instanceId).catch((err: unknown) => {
          this.o.logger.warn({ err }, 'cluster: reading the mailbox failed');
          return [];
        });
        for (const l of letters) this.onLetter?.(l);
      } while (this.again && !this.stopped);
    })().finally(() => (this.draining = undefined));
  }
}
