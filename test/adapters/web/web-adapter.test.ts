/** The web adapter: its binding keys, message store and events, button checks, and HTTP input validation. */
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { InboundHandler } from '../../../src/adapters/contract/messages';
import { WebAdapter, webRoutes, type WebEvent } from '../../../src/adapters/web';
import { describeThreadRefContract } from '../helpers/thread-ref-contract';

describeThreadRefContract('web codec', { platform: 'web', examples: [{ platform: 'web', conversation: 'playground-1' }] });

const thread = { platform: 'web' as const, conversation: 'c1' };
const content = (text: string, buttons: { label: string; payload: string }[] = []) => ({ text, header: '', answer: text, answerOffset: 0, buttons, plain: false, final: false, part: 0 });

function recordingHandler() {
  const seen: { kind: string; value: unknown }[] = [];
  const handler: InboundHandler = {
    onMessage: async (m) => void seen.push({ kind: 'message', value: m }),
    onAction: async (a) => {
      seen.push({ kind: 'action', value: a });
      await a.answer({ text: 'noted' });
      await a.answer({ text: 'ignored second answer' });
    },
  };
  return { seen, handler };
}

describe('WebAdapter', () => {
  it('posts, edits and deletes messages and publishes each change', async () => {
    const web = new WebAdapter({ now: () => 1000 });
    const events: WebEvent[] = [];
    web.subscribe('c1', (e) => events.push(e));
    const ref = await web.post(thread, content('hello'));
    await web.edit(ref, content('hello world'));
    expect(web.messages('c1')).toMatchObject([{ id: ref.messageId, author: 'bot', text: 'hello world', edits: 1 }]);
    await web.delete(ref);
    expect(web.messages('c1')).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['message', 'edit', 'delete']);
  });

  it('reports an edit of a missing message as gone, so writers post anew', async () => {
    const web = new WebAdapter();
    await expect(web.edit({ thread, messageId: 'nope' }, content('x'))).rejects.toMatchObject({ classification: { kind: 'degrade', reason: 'gone' } });
  });

  it('turns send() into an addressed DM for the gateway and click() into an action with one answer', async () => {
    const web = new WebAdapter();
    const { seen, handler } = recordingHandler();
    await web.start(handler);
    await web.send('c1', { id: 'admin' }, 'hi');
    expect(seen[0].value).toMatchObject({ platform: 'web', thread, text: 'hi', isDM: true, mentionsBot: true });
    const ref = await web.post(thread, content('card', [{ label: 'Allow', payload: 'a:1:allow' }]));
    expect(await web.click('c1', ref.messageId, 'a:1:allow', { id: 'admin' })).toEqual({ text: 'noted' });
    await expect(web.click('c1', ref.messageId, 'forged', { id: 'admin' })).rejects.toMatchObject({ code: 'bad_button' });
    await expect(web.click('c1', 'missing', 'a:1:allow', { id: 'admin' })).rejects.toMatchObject({ code: 'not_found' });
    await web.stop();
    await expect(web.send('c1', { id: 'admin' }, 'late')).rejects.toMatchObject({ code: 'not_started' });
  });

  it('keeps a bounded history per conversation', async () => {
    const web = new WebAdapter();
    for (let i = 0; i < 510; i++) await web.post(thread, content(`m${i}`));
    const msgs = web.messages('c1');
    expect(msgs).toHaveLength(500);
    expect(msgs[0].text).toBe('m10');
  });
});

describe('web routes', () => {
  async function serve(web: WebAdapter) {
    const app = express();
    webRoutes(web, { auth: (req, res, next) => (req.headers.authorization === 'Bearer t' ? next() : void res.status(401).json({ error: { code: 'unauthorized', message: 'no' } })) })(app);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, close: () => new Promise((r) => server.close(r)) };
  }

  it('validates input and answers errors as {error:{code,message}}', async () => {
    const web = new WebAdapter();
    await web.start(recordingHandler().handler);
    const s = await serve(web);
    const post = (path: string, body: unknown, auth = 'Bearer t') => fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    try {
      expect((await post('/api/web/conversations/c1/messages', { text: 'x' }, 'Bearer wrong')).status).toBe(401);
      const bad = await post('/api/web/conversations/c1/messages', { text: '' });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: { code: 'bad_request', message: 'text: text must not be empty' } });
      expect((await post('/api/web/conversations/c1/messages', { text: 'x', extra: 1 })).status).toBe(400);
      expect((await post('/api/web/conversations/bad%20id/messages', { text: 'x' })).status).toBe(400);
      expect((await post('/api/web/conversations/c1/messages', '{not json')).status).toBe(400);
      expect((await post('/api/web/conversations/c1/actions', { message_id: 'm404', payload: 'p' })).status).toBe(404);
      expect((await post('/api/web/conversations/c1/messages', { text: 'hello' })).status).toBe(202);
    } finally {
      await s.close();
    }
  });
});
