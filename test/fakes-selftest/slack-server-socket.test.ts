/**
 * Socket Mode against a real Bolt App (its SocketModeClient runs on undici's WebSocket) and against a
 * bare `ws` client: apps.connections.open honours `clientOptions.slackApiUrl`, hello, envelopes and
 * acks, redelivery of unacked envelopes (retry_attempt / retry_reason), `disconnect` messages and
 * dropped links followed by the app reconnecting, a zombie link the client's ping check abandons,
 * envelopes spread over the connections of two app processes, interactivity envelopes, server pings and
 * spent tickets.
 */
import { App } from '@slack/bolt';
import WebSocket from 'ws';
import { quietLogger, startSlackHarness, type SlackHarness } from './slack-harness';

let h: SlackHarness;
let clients: WebSocket[] = [];
afterEach(async () => {
  for (const c of clients) c.terminate();
  clients = [];
  await h?.cleanup();
});

interface Bare {
  ws: WebSocket;
  frames: Array<Record<string, any>>;
  pings: number;
  /** Resolves with the first frame (already received or coming) that matches. */
  frame(match: (f: Record<string, any>) => boolean): Promise<Record<string, any>>;
}

/** A bare Socket Mode client: opens a connection and collects what the fake sends. */
async function bareClient(): Promise<Bare> {
  const { url } = await h.web({}, h.server.appToken).apps.connections.open({});
  const ws = new WebSocket(url!);
  ws.on('error', () => undefined);
  clients.push(ws);
  const c: Bare = {
    ws, frames: [], pings: 0,
    frame: (match) => new Promise((resolve) => {
      const hit = c.frames.find(match);
      if (hit) return resolve(hit);
      const on = (data: WebSocket.RawData) => {
        const f = JSON.parse(data.toString());
        if (!match(f)) return;
        ws.off('message', on);
        resolve(f);
      };
      ws.on('message', on);
    }),
  };
  ws.on('message', (data) => c.frames.push(JSON.parse(data.toString())));
  ws.on('ping', () => c.pings++);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return c;
}

const waitUntil = (f: () => boolean, label: string) => h.server.waitFor(() => f() || undefined, 5000, label);

describe('Socket Mode with Bolt', () => {
  it('connects through the fake when only clientOptions.slackApiUrl is set, receives an event and acks it', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const app = new App({
      token: h.server.botToken, appToken: h.server.appToken, socketMode: true, deferInitialization: true, logger: quietLogger(),
      clientOptions: { slackApiUrl: h.server.apiUrl },
    });
    await app.init();
    const seen: Array<Record<string, any>> = [];
    app.event('app_mention', async ({ event, say, body }) => {
      seen.push(body);
      await say({ text: 'over the socket', thread_ts: event.ts });
    });
    try {
      await app.start();
      expect(h.server.callsTo('apps.connections.open')).toEqual([expect.objectContaining({ tokenKind: 'app', ok: true })]);
      expect(h.server.socketConnections()).toEqual([expect.objectContaining({ id: 1, state: 'open', zombie: false })]);
      const m = h.server.mention('general', 'U0000ALICE', 'ping');
      const d = await m.delivery.done;
      expect(d).toMatchObject({ mode: 'socket', state: 'acked', attempts: [{ retryNum: 0, connectionId: 1, acked: true }] });
      await waitUntil(() => h.server.threadTexts('general', m.ts).length === 2, 'reply');
      expect(seen[0]).toMatchObject({ type: 'event_callback', event_id: d.eventId, event: { type: 'app_mention', ts: m.ts } });
    } finally {
      await app.stop();
      await waitUntil(() => h.server.socketConnections().every((c) => c.state === 'closed'), 'closed');
    }
  });

  it('reconnects after a disconnect message and after a dropped link, and keeps delivering', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const app = await h.boltSocket({ clientPingTimeout: 300 });
    let mentions = 0;
    app.event('app_mention', async () => {
      mentions++;
    });
    h.server.socketDisconnect('refresh_requested');
    await waitUntil(() => h.server.socketConnections().filter((c) => c.state === 'open').length === 1 && h.server.socketConnections().length === 2, 'second connection');
    const [first, second] = h.server.socketConnections();
    expect(first).toMatchObject({ state: 'closed', closedBy: 'client', disconnectsSent: ['refresh_requested'] });
    expect(second.state).toBe('open');
    expect(h.server.callCount('apps.connections.open')).toBe(2);
    await h.server.mention('general', 'U0000ALICE', 'after refresh').delivery.done;
    expect(h.server.deliveries.at(-1)!.attempts[0].connectionId).toBe(second.id);

    h.server.dropSocket();
    await waitUntil(() => h.server.socketConnections().length === 3 && h.server.socketConnections()[2].state === 'open', 'third connection');
    expect(h.server.socketConnections()[1]).toMatchObject({ state: 'closed', closedBy: 'server' });
    await h.server.mention('general', 'U0000ALICE', 'after drop').delivery.done;
    await waitUntil(() => mentions === 2, 'both handled');
  });

  it('abandons a zombie connection when pongs stop, reconnects, and gets the lost envelope redelivered', async () => {
    h = await startSlackHarness({ rateLimits: false, socket: { ackTimeoutMs: 1200 } });
    const app = await h.boltSocket({ clientPingTimeout: 300 });
    const texts: string[] = [];
    app.event('app_mention', async ({ event }) => {
      texts.push(event.text);
    });
    h.server.zombieSocket();
    const lost = h.server.mention('general', 'U0000ALICE', 'into the void');
    await waitUntil(() => h.server.socketConnections().some((c) => c.id > 1 && c.state === 'open'), 'reconnected');
    const d = await lost.delivery.done;
    expect(d.state).toBe('acked');
    expect(d.attempts[0]).toMatchObject({ connectionId: 1, retryNum: 0, acked: false });
    expect(d.attempts.at(-1)).toMatchObject({ connectionId: 2, retryNum: d.attempts.length - 1, retryReason: 'timeout', acked: true });
    expect(h.server.socketConnections()[0]).toMatchObject({ zombie: true, envelopes: [d.attempts[0].envelopeId] });
    await waitUntil(() => h.server.socketConnections()[0].state === 'closed', 'zombie closed by the client');
    expect(texts).toEqual([`<@${h.server.bot.userId}> into the void`]);
  });

  it('spreads envelopes over the connections of two app processes, and each handles what reached it', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const seen: Record<'one' | 'two', string[]> = { one: [], two: [] };
    for (const name of ['one', 'two'] as const) {
      const app = await h.boltSocket();
      app.event('app_mention', async ({ event }) => {
        seen[name].push(event.text.replace(/^<@\w+> /, ''));
      });
    }
    expect(h.server.socketConnections()).toEqual([expect.objectContaining({ id: 1, state: 'open' }), expect.objectContaining({ id: 2, state: 'open' })]);
    const done = await Promise.all(['m1', 'm2', 'm3', 'm4'].map((t) => h.server.mention('general', 'U0000ALICE', t).delivery.done));
    expect(done.map((d) => ({ state: d.state, to: d.attempts.map((a) => a.connectionId) }))).toEqual([
      { state: 'acked', to: [1] }, { state: 'acked', to: [2] }, { state: 'acked', to: [1] }, { state: 'acked', to: [2] },
    ]);
    await waitUntil(() => seen.one.length + seen.two.length === 4, 'all handled');
    expect(seen).toEqual({ one: ['m1', 'm3'], two: ['m2', 'm4'] });
  });

  it('delivers block_actions as an interactive envelope and takes the ack', async () => {
    h = await startSlackHarness({ rateLimits: false });
    const app = await h.boltSocket();
    const posted = await app.client.chat.postMessage({
      channel: h.server.defaultChannel, text: 'Stop?', blocks: [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Stop' }, action_id: 'stop' }] }],
    });
    app.action('stop', async ({ ack, respond }) => {
      await ack();
      await respond({ delete_original: true });
    });
    const click = h.server.clickButton(posted.ts!, 'stop');
    expect(await click.done).toMatchObject({ kind: 'interactive', mode: 'socket', state: 'acked' });
    await waitUntil(() => h.server.messageState(posted.ts!) === undefined, 'deleted');
    expect(h.server.responseUrl(click.responseUrl)!.uses[0].action).toBe('deleted');
  });
});

describe('Socket Mode wire protocol', () => {
  it('says hello, sends envelopes, redelivers unacked ones with retry_attempt, and pings', async () => {
    h = await startSlackHarness({ rateLimits: false, socket: { ackTimeoutMs: 300, pingIntervalMs: 50 } });
    const c = await bareClient();
    expect(await c.frame((f) => f.type === 'hello')).toEqual({
      type: 'hello', num_connections: 1, debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: h.server.bot.appId },
    });
    const m = h.server.mention('general', 'U0000ALICE', 'hi');
    const first = await c.frame((f) => f.type === 'events_api');
    const retry = await c.frame((f) => f.type === 'events_api' && f.retry_attempt === 1);
    expect(first).toMatchObject({ type: 'events_api', accepts_response_payload: false, retry_attempt: 0, retry_reason: '', payload: { event_id: m.delivery.eventId } });
    expect(retry).toMatchObject({ type: 'events_api', retry_attempt: 1, retry_reason: 'timeout', payload: { event_id: m.delivery.eventId } });
    expect(retry.envelope_id).not.toBe(first.envelope_id);
    c.ws.send(JSON.stringify({ envelope_id: retry.envelope_id }));
    const acked = await m.delivery.done;
    expect(acked.attempts[0].acked).toBe(false);
    expect(acked.attempts.find((a) => a.envelopeId === retry.envelope_id)!.acked).toBe(true);
    await new Promise<void>((r) => c.ws.on('ping', () => c.pings >= 2 && r()));

    const cmd = h.server.slashCommand('/penguin', 'help');
    const env = await c.frame((f) => f.type === 'slash_commands');
    expect(env).toMatchObject({ accepts_response_payload: true, payload: { command: '/penguin', text: 'help', user_id: 'U0000ALICE' } });
    c.ws.send(JSON.stringify({ envelope_id: env.envelope_id, payload: { text: 'usage: /penguin …' } }));
    expect((await cmd.done).ackPayload).toEqual({ text: 'usage: /penguin …' });
  });

  it('keeps envelopes until a connection opens, answers pings unless zombie, and refuses a spent ticket', async () => {
    h = await startSlackHarness({ rateLimits: false, socket: { pingIntervalMs: 0 } });
    const m = h.server.mention('general', 'U0000ALICE', 'early');
    const c = await bareClient();
    expect((await c.frame((f) => f.type === 'events_api')).payload.event_id).toBe(m.delivery.eventId);
    const pongs: string[] = [];
    c.ws.on('pong', (data) => pongs.push(data.toString()));
    c.ws.ping('one');
    await waitUntil(() => h.server.socketConnections()[0].pingsFromClient === 1, 'first ping');
    h.server.zombieSocket();
    c.ws.ping('two');
    await waitUntil(() => h.server.socketConnections()[0].pingsFromClient === 2, 'zombie saw the ping');
    h.server.zombieSocket(undefined, false);
    const third = new Promise<void>((r) => c.ws.on('pong', (data) => data.toString() === 'three' && r()));
    c.ws.ping('three');
    await third;
    expect(pongs).toEqual(['one', 'three']);

    const { url } = await h.web({}, h.server.appToken).apps.connections.open({});
    const once = new WebSocket(url!);
    once.on('error', () => undefined);
    clients.push(once);
    await new Promise<void>((r) => once.once('open', () => r()));
    const again = new WebSocket(url!);
    again.on('error', () => undefined);
    clients.push(again);
    const status = await new Promise<number>((r) => again.once('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
    expect(status).toBe(401);
  });
});
