/** Letters between instances: a message survives the trip with its attachments' bytes; bad letters are refused with where they are wrong. */
import { packMessage, readLetter, unpackMessage } from '../../../src/gateway/cluster/letters';
import type { InboundMessage } from '../../../src/adapters/contract/messages';

const base: InboundMessage = {
  platform: 'telegram', thread: { platform: 'telegram', chat: '42', topic: null }, user: { id: '42', name: 'Ann' }, text: 'see attached',
  attachments: [], mentionsBot: false, isDM: true, eventId: 'u1', messageId: '7', sentAt: 1000,
};

describe('letters', () => {
  it('carries a message and the bytes of its attachments, and says why one could not be fetched', async () => {
    const m: InboundMessage = {
      ...base,
      attachments: [
        { kind: 'file', name: 'a.txt', mimeType: 'text/plain', sizeBytes: 5, download: async () => Buffer.from('hello') },
        { kind: 'image', name: 'b.png', download: async () => { throw new Error('file is too big'); } },
      ],
    };
    const read = readLetter('message', JSON.stringify({ message: await packMessage(m) }));
    if (!read.ok) throw new Error(read.error);
    const back = unpackMessage(read.value.message);
    expect({ ...back, attachments: [] }).toEqual({ ...base, attachments: [] });
    expect((await back.attachments[0].download()).toString()).toBe('hello');
    expect(back.attachments[0]).toMatchObject({ kind: 'file', name: 'a.txt', mimeType: 'text/plain', sizeBytes: 5 });
    await expect(back.attachments[1].download()).rejects.toThrow('file is too big');
  });

  it('refuses a letter that is not JSON or not of its kind, saying where', () => {
    expect(readLetter('message', '{')).toEqual({ ok: false, error: 'body is not JSON' });
    const r = readLetter('action', JSON.stringify({ action: { platform: 'telegram' }, reply: 1 }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/reply: /);
    expect(!r.ok && r.error).toMatch(/action\.payload: /);
  });
});
