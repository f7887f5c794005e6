/**
 * ClusterRouter between two instances over the real store (SQLite) and an in-memory mailbox: an event
 * arriving at the non-owner reaches the owner's handler (its adapter told first), a press is answered with
 * the owner's answer, requests get their response, and one to a stopped peer fails at once.
 */
import pino from 'pino';
import type { ChannelAdapter } from '../../../src/adapters/contract/adapter';
import type { Clock } from '../../../src/adapters/contract/clock';
import type { ActionAnswer, ActionEvent, InboundHandler, InboundMessage } from '../../../src/adapters/contract/messages';
import { Membership } from '../../../src/gateway/cluster/membership';
import type { Bus } from '../../../src/gateway/cluster/pg-bus';
import { ClusterRouter, type RequestHandler } from '../../../src/gateway/cluster/router';
import type { MailRow } from '../../../src/gateway/store/types';
import { openTestStore, type TestStore } from '../store/helpers';

const thread = { platform: 'telegram' as const, chat: '42', topic: null };
const msg: InboundMessage = { platform: 'telegram', thread, user: { id: '42' }, text: 'hi', attachments: [], mentionsBot: false, isDM: true, eventId: 'e1', messageId: '1', sentAt: 0 };

class MemoryBus implements Bus {
  private static boxes = new Map<string, (l: MailRow) => void>();
  private static seq = 0;
  constructor(private readonly me: string) {}
  async send(to: string, kind: string, body: unknown): Promise<void> {
    const row: MailRow = { id: ++MemoryBus.seq, to_instance: to, from_instance: this.me, kind, body: JSON.stringify(body), created_at: 0 };
    setImmediate(() => MemoryBus.boxes.get(to)?.(row));
  }
  async start(onLetter: (l: MailRow) => void): Promise<void> {
    MemoryBus.boxes.set(this.me, onLetter);
  }
  async stop(): Promise<void> {
    MemoryBus.boxes.delete(this.me);
  }
}

describe('ClusterRouter', () => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore();
  });
  afterEach(() => t.cleanup());

  async function instance(id: string, handler: InboundHandler, requests: Record<string, RequestHandler> = {}) {
    const clock: Clock = { now: () => t.clock.t, setTimeout: () => ({}), clearTimeout: () => undefined };
    const membership = new Membership({ store: t.store, id, leaseMs: 10_000, clock, logger: pino({ level: 'silent' }), url: () => null, onAcquired: async () => undefined, onTakeover: async () => undefined });
    await membership.join();
    const received: unknown[] = [];
    const adapter = { platform: 'telegram', received: (e: unknown) => void received.push(e) } as unknown as ChannelAdapter;
    const bus = new MemoryBus(id);
    const router = new ClusterRouter({ membership, bus, logger: pino({ level: 'silent' }), adapterFor: () => adapter, handlerFor: () => handler, requests });
    await bus.start((l) => router.receive(l));
    return { router, adapter, received, membership };
  }

  const recorder = () => {
    const messages: InboundMessage[] = [];
    const actions: ActionEvent[] = [];
    const handler: InboundHandler = {
      onMessage: async (m) => void messages.push(m),
      onAction: async (a) => {
        actions.push(a);
        await a.answer({ text: 'decided by the owner' });
      },
    };
    return { messages, actions, handler };
  };

  it('hands an event for a conversation another instance owns to that owner, whose adapter hears of it first', async () => {
    const ownerSide = recorder();
    const otherSide = recorder();
    const owner = await instance('owner', ownerSide.handler);
    const other = await instance('other', otherSide.handler);
    await owner.router.wrap(ownerSide.handler).onMessage(msg);
    await other.router.wrap(otherSide.handler).onMessage({ ...msg, eventId: 'e2', text: 'again' });
    await new Promise((r) => setTimeout(r, 20));
    expect(ownerSide.messages.map((m) => m.text)).toEqual(['hi', 'again']);
    expect(otherSide.messages).toEqual([]);
    expect(owner.received).toEqual([expect.objectContaining({ text: 'again' })]);

    const answers: (ActionAnswer | undefined)[] = [];
    const press: ActionEvent = { platform: 'telegram', thread, user: { id: '42' }, payload: 'x', message: { thread, messageId: '5' }, eventId: 'a1', answer: async (a) => void answers.push(a) };
    await other.router.wrap(otherSide.handler).onAction(press);
    expect(ownerSide.actions.map((a) => a.eventId)).toEqual(['a1']);
    expect(answers).toEqual([{ text: 'decided by the owner' }]);
  });

  it('answers requests, and fails one waiting on a peer that stopped without waiting for its timeout', async () => {
    await instance('a', recorder().handler, { echo: async (args) => ({ got: args }), broken: async () => { throw new Error('nope'); } });
    const b = await instance('b', recorder().handler);
    await expect(b.router.request('a', 'echo', 7)).resolves.toEqual({ got: 7 });
    await expect(b.router.request('a', 'broken', null)).rejects.toThrow('nope');
    await expect(b.router.request('a', 'missing', null)).rejects.toThrow('unknown request missing');
    const waiting = b.router.request('nobody', 'echo', 1, 60_000);
    b.router.peersGone(['nobody']);
    await expect(waiting).rejects.toThrow('instance nobody stopped');

  });
});
