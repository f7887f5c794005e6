/**
 * A recording ChannelAdapter posing as Slack, for scheduled deliveries to a channel: `startConversation`
 * posts a top-level message and returns its thread (`threadTs` = that message's id), later posts go into
 * the thread. Set `canStart = false` for an adapter without the method. The test reads what was posted.
 */
import type { ChannelAdapter } from '../../../src/adapters/contract/adapter';
import type { DeliveryTarget } from '../../../src/adapters/contract/delivery-target';
import { PlatformError, isPlatformError } from '../../../src/adapters/contract/errors';
import { SLACK_LIMITS } from '../../../src/adapters/contract/limits';
import type { InboundHandler, InboundMessage, MessageRef } from '../../../src/adapters/contract/messages';
import type { RateScope } from '../../../src/adapters/contract/rate';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import { bindingKey, type SlackThreadRef, type ThreadRef } from '../../../src/adapters/contract/thread-ref';

export interface ChannelPost {
  id: string;
  /** The binding key of the thread, or `channel:<team>:<channel>` for a top-level message. */
  where: string;
  content: OutboundContent;
}

const slack = (t: ThreadRef): SlackThreadRef => {
  if (t.platform !== 'slack') throw new PlatformError('slack', { kind: 'surface', reason: 'invalid_request' }, 'not a slack thread');
  return t;
};

export function fakeChannelAdapter(o: { canStart?: boolean } = {}) {
  const posted: ChannelPost[] = [];
  let seq = 1000;
  let handler: InboundHandler | undefined;
  const adapter: ChannelAdapter & { posted: ChannelPost[]; inject(m: InboundMessage): Promise<void> } = {
    platform: 'slack',
    limits: { ...SLACK_LIMITS, minEditIntervalMs: { dm: 50, group: 50 } },
    posted,
    async start(h) {
      handler = h;
    },
    async stop() {
      handler = undefined;
    },
    place(t) {
      const s = slack(t);
      return { platform: 'slack', scope: { workspace: s.team, channel: s.channel }, channel: s.channel, group: s.team, direct: false, workspaceKey: `${s.team}/${s.channel}` };
    },
    async post(thread, content): Promise<MessageRef> {
      const id = `${++seq}.000100`;
      posted.push({ id, where: bindingKey(thread), content });
      return { thread, messageId: id };
    },
    async edit(ref, content) {
      const p = posted.find((x) => x.id === ref.messageId);
      if (!p) throw new PlatformError('slack', { kind: 'degrade', reason: 'gone' }, 'message_not_found');
      p.content = content;
    },
    async delete() {},
    rateScopes(thread): RateScope[] {
      return [{ key: `fake-slack:${bindingKey(thread)}`, limit: { count: 100, perMs: 1000, burst: 100 }, level: 'chat' }];
    },
    classify(e) {
      return isPlatformError(e) ? e : new PlatformError('slack', { kind: 'retry' }, String(e));
    },
    async inject(m) {
      await handler!.onMessage(m);
    },
  };
  if (o.canStart !== false) {
    adapter.startConversation = async (target: DeliveryTarget, content: OutboundContent) => {
      if (target.platform !== 'slack') throw new PlatformError('slack', { kind: 'surface', reason: 'invalid_request' }, 'not a slack target');
      const id = `${++seq}.000100`;
      posted.push({ id, where: `channel:${target.team}:${target.channel}`, content });
      return { thread: { platform: 'slack', team: target.team, channel: target.channel, threadTs: id }, messageId: id };
    };
  }
  return adapter;
}
