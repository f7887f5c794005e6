/**
 * Routes each platform event to the instance that owns its conversation: the arriving instance claims the
 * conversation (then handles the event itself) or sends it to the live owner, whose own adapter then
 * answers in the chat; a conversation opened before its first message is claimed by the instance it opened on. A forwarded button press is acknowledged by the arriving instance with the answer
 * the owner sends back, or blankly after ANSWER_WAIT_MS (platforms give about 3 s). Requests between
 * instances (stop a session, decide an approval, run a schedule's fire) get a response or fail on timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import { InboundDispatcher } from '../../adapters/contract/inbound-dispatcher';
import type { ActionAnswer, InboundHandler } from '../../adapters/contract/messages';
import { bindingKey } from '../../adapters/contract/thread-ref';
import type { MailRow } from '../store/types';
import { isLetterKind, packAction, packMessage, readLetter, unpackAction, unpackMessage, type LetterBody, type LetterKind } from './letters';
import type { Membership } from './membership';
import type { Bus } from './pg-bus';

export const ANSWER_WAIT_MS = 2500;
const REQUEST_WAIT_MS = 15_000;

export type RequestHandler = (args: unknown) => Promise<unknown>;

export interface RouterOptions {
  membership: Membership;
  bus: Bus;
  logger: Logger;
  adapterFor(platform: string): ChannelAdapter | undefined;
  /** The local handler events of this platform go to once they are this instance's. */
  handlerFor(adapter: ChannelAdapter): InboundHandler;
  requests: Record<string, RequestHandler>;
}

interface Waiting<T> {
  to: string;
  settle(v: T): void;
  fail(e: Error): void;
}

export class ClusterRouter {
  private readonly answers = new Map<string, (a: ActionAnswer | undefined) => void>();
  private readonly pending = new Map<string, Waiting<unknown>>();
  private readonly dispatchers = new Map<string, InboundDispatcher>();

  constructor(private readonly o: RouterOptions) {}

  /** The handler an adapter delivers to: its events run here or at their conversation's owner. */
  wrap(local: InboundHandler): InboundHandler {
    return {
      onMessage: async (m) => {
        const owner = await this.o.membership.claim(bindingKey(m.thread));
        if (owner === this.o.membership.id) return local.onMessage(m);
        await this.send(owner, 'message', { message: await packMessage(m) });
      },
      onOpened: async (thread) => {
        const owner = await this.o.membership.claim(bindingKey(thread));
        if (owner === this.o.membership.id) await local.onOpened?.(thread);
      },
      onAction: async (a) => {
        const owner = await this.o.membership.claim(bindingKey(a.thread));
        if (owner === this.o.membership.id) return local.onAction(a);
        const reply = randomUUID();
        const answered = new Promise<ActionAnswer | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), ANSWER_WAIT_MS);
          this.answers.set(reply, (v) => {
            clearTimeout(timer);
            resolve(v);
          });
        });
        try {
          await this.send(owner, 'action', { action: packAction(a), reply });
          await a.answer(await answered);
        } finally {
          this.answers.delete(reply);
        }
      },
    };
  }

  /** Asks `to` to run `op`; rejects when it does not answer in time or stops meanwhile. */
  request(to: string, op: string, args: unknown, waitMs = REQUEST_WAIT_MS): Promise<unknown> {
    const reply = randomUUID();
    return new Promise((settle, fail) => {
      const timer = setTimeout(() => done(() => fail(new Error(`instance ${to} did not answer ${op} within ${waitMs} ms`))), waitMs);
      const done = (f: () => void) => {
        clearTimeout(timer);
        this.pending.delete(reply);
        f();
      };
      this.pending.set(reply, { to, settle: (v) => done(() => settle(v)), fail: (e) => done(() => fail(e)) });
      this.send(to, 'request', { reply, op, args }).catch((e: Error) => this.pending.get(reply)?.fail(e));
    });
  }

  /** Requests waiting on instances that were found dead fail now rather than at their timeout. */
  peersGone(instances: readonly string[]): void {
    for (const w of [...this.pending.values()]) if (instances.includes(w.to)) w.fail(new Error(`instance ${w.to} stopped`));
  }

  /** A letter from the mailbox. */
  receive(l: MailRow): void {
    if (!isLetterKind(l.kind)) {
      this.o.logger.warn({ kind: l.kind, from: l.from_instance }, 'cluster: a letter of an unknown kind was dropped');
      return;
    }
    const r = readLetter(l.kind, l.body);
    if (!r.ok) {
      this.o.logger.warn({ kind: l.kind, from: l.from_instance, error: r.error }, 'cluster: a malformed letter was dropped');
      return;
    }
    this.handle(l.kind, r.value, l.from_instance);
  }

  private handle(kind: LetterKind, body: unknown, from: string): void {
    switch (kind) {
      case 'message': {
        const { message } = body as LetterBody<'message'>;
        const d = this.dispatcher(message.platform);
        if (!d) return;
        const m = unpackMessage(message);
        this.o.adapterFor(message.platform)?.received?.(m);
        d.deliver({ kind: 'message', message: m });
        return;
      }
      case 'action': {
        const { action, reply } = body as LetterBody<'action'>;
        const d = this.dispatcher(action.platform);
        let said = false;
        const answer = async (a?: ActionAnswer) => {
          if (said) return;
          said = true;
          await this.send(from, 'answer', { reply, answer: a ?? {} });
        };
        if (!d) return;
        const a = unpackAction(action, (x) => answer(x).catch(() => undefined));
        this.o.adapterFor(action.platform)?.received?.(a);
        d.deliver({ kind: 'action', action: a });
        return;
      }
      case 'answer': {
        const { reply, answer } = body as LetterBody<'answer'>;
        this.answers.get(reply)?.(answer.text === undefined && answer.alert === undefined ? undefined : answer);
        return;
      }
      case 'request': {
        const { reply, op, args } = body as LetterBody<'request'>;
        const run = this.o.requests[op];
        const answer = run ? run(args).then((value) => ({ reply, ok: true, value }), (e: unknown) => ({ reply, ok: false, error: e instanceof Error ? e.message : String(e) }))
          : Promise.resolve({ reply, ok: false, error: `unknown request ${op}` });
        void answer.then((res) => this.send(from, 'response', res)).catch(() => undefined);
        return;
      }
      case 'response': {
        const res = body as LetterBody<'response'>;
        const w = this.pending.get(res.reply);
        if (!w) return;
        if (res.ok) w.settle(res.value);
        else w.fail(new Error(res.error ?? 'the request failed'));
        return;
      }
    }
  }

  private dispatcher(platform: string): InboundDispatcher | undefined {
    const adapter = this.o.adapterFor(platform);
    if (!adapter) {
      this.o.logger.warn({ platform }, 'cluster: an event was forwarded here for a platform this instance does not run');
      return undefined;
    }
    let d = this.dispatchers.get(platform);
    if (!d) this.dispatchers.set(platform, (d = new InboundDispatcher(this.o.handlerFor(adapter), this.o.logger, platform)));
    return d;
  }

  private async send(to: string, kind: LetterKind, body: unknown): Promise<void> {
    await this.o.bus.send(to, kind, body).catch((err: unknown) => {
      this.o.logger.warn({ err, to, kind }, 'cluster: a letter could not be sent');
      throw err;
    });
  }
}
