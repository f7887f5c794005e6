/**
 * surfaceFor: a ChannelAdapter seen as the writer's MessageSurface for one thread — calls carry the thread,
 * rate scopes and measure come from the adapter, native streaming only when asked for and offered.
 */
import type { ChannelAdapter } from '../../../src/adapters/contract/adapter';
import { surfaceFor } from '../../../src/adapters/contract/adapter';
import { asPlatformError } from '../../../src/adapters/contract/errors';
import { TELEGRAM_LIMITS } from '../../../src/adapters/contract/limits';
import type { MessageRef } from '../../../src/adapters/contract/messages';
import type { OutboundContent } from '../../../src/adapters/contract/surface';
import type { ThreadRef } from '../../../src/adapters/contract/thread-ref';

const thread: ThreadRef = { platform: 'telegram', chat: '-100', topic: '7' };
const content: OutboundContent = { text: 'hi', header: '', answer: 'hi', answerOffset: 0, plain: false, final: true, part: 0 };

function fakeAdapter(log: unknown[]): ChannelAdapter {
  return {
    platform: 'telegram',
    limits: TELEGRAM_LIMITS,
    start: async () => undefined,
    stop: async () => undefined,
    place: () => ({ platform: 'telegram', scope: { chat: '-100' }, channel: '-100', group: '-100', direct: false, workspaceKey: '-100' }),
    post: async (t, c) => {
      log.push(['post', t, c.text]);
      return { thread: t, messageId: '41' };
    },
    edit: async (ref: MessageRef, c) => void log.push(['edit', ref, c.text]),
    delete: async (ref: MessageRef) => void log.push(['delete', ref]),
    rateScopes: (t, op) => [{ key: `tg:${bindingKey(t)}:${op}`, limit: { count: 1, perMs: 1000, burst: 1 }, level: 'chat' }],
    classify: (e) => asPlatformError(e, 'telegram'),
    measure: (md) => md.length * 2,
    nativeStream: (_t, isDM) => (isDM ? { kind: 'draft', draft: async () => undefined } : undefined),
  };
}
const bindingKey = (t: ThreadRef) => (t.platform === 'telegram' ? `${t.chat}/${t.topic}` : '?');

describe('surfaceFor', () => {
  it('routes calls to the adapter with the thread and exposes scopes and measure', async () => {
    const log: unknown[] = [];
    const s = surfaceFor(fakeAdapter(log), thread, { isDM: false });
    expect(await s.post(content)).toBe('41');
    await s.edit('41', { ...content, text: 'hey' });
    await s.delete('41');
    expect(log).toEqual([
      ['post', thread, 'hi'],
      ['edit', { thread, messageId: '41' }, 'hey'],
      ['delete', { thread, messageId: '41' }],
    ]);
    expect(s.scopes('edit').map((x) => x.key)).toEqual(['tg:-100/7:edit']);
    expect(s.measure?.('abc')).toBe(6);
    expect(s.native).toBeUndefined();
  });

  it('offers native streaming exactly where the adapter does', () => {
    expect(surfaceFor(fakeAdapter([]), thread, { isDM: true }).native?.kind).toBe('draft');
    expect(surfaceFor(fakeAdapter([]), thread, { isDM: false }).native).toBeUndefined();
  });
});
