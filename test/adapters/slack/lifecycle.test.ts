/**
 * The Slack adapter's lifecycle against the fake Slack: a rejected bot or app token stops start() with a
 * message naming the variable to fix; health() reports the Socket Mode link; a link that stays open but
 * silent (the fake's zombie answers no pings and delivers nothing) is replaced by the silence watchdog even
 * when the SDK's own ping check would take a minute; Slack's `disconnect` message gets a fresh link at once;
 * stop() closes every link and is idempotent.
 */
import { RecordingHandler, startSlackHarness, type SlackHarness } from './harness';

let h: SlackHarness;
afterEach(() => h.cleanup());

const openLinks = () => h.server.socketConnections().filter((c) => c.state === 'open');

it('refuses to start with a rejected bot token, naming SLACK_BOT_TOKEN', async () => {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = await h.httpAdapter({ botToken: 'xoxb-0-0-wrong' });
  await expect(adapter.start(new RecordingHandler())).rejects.toThrow(/Slack rejected the bot token \(invalid_auth\): check SLACK_BOT_TOKEN/);
  expect(adapter.health().state).toBe('failed');
});

it('refuses to start in Socket Mode with a rejected app token, naming SLACK_APP_TOKEN', async () => {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = h.socketAdapter({ appToken: 'xapp-1-wrong' });
  await expect(adapter.start(new RecordingHandler())).rejects.toThrow(/Socket Mode did not connect: .*invalid_auth.*SLACK_APP_TOKEN/);
});

it('replaces a silent link (open, no pings, no events) before the SDK would notice, then delivers again', async () => {
  h = await startSlackHarness({ rateLimits: false, socket: { pingIntervalMs: 0, ackTimeoutMs: 500 } });
  const adapter = h.socketAdapter({ socketSilenceMs: 400 }, { clientPingTimeoutMs: 120_000 });
  const rec = new RecordingHandler();
  await adapter.start(rec);
  expect(adapter.health()).toMatchObject({ state: 'connected' });
  const [first] = h.server.socketConnections();
  h.server.zombieSocket(first.id);
  const lost = h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'into the void');
  await h.server.waitFor(() => h.server.socketConnections().some((c) => c.id !== first.id && c.state === 'open') || undefined, 10_000, 'a fresh link');
  await h.server.waitFor(() => h.server.socketConnections()[0].state === 'closed' || undefined, 10_000, 'the zombie closed');
  const msg = await rec.waitFor(() => rec.messages[0], 'the lost mention, redelivered on the fresh link', 10_000);
  expect(msg.eventId).toBe(lost.delivery.eventId);
  expect(h.server.socketConnections()[0]).toMatchObject({ closedBy: 'client' });
  expect(adapter.health().state).toBe('connected');
  expect(h.server.callsTo('apps.connections.open').length).toBeGreaterThanOrEqual(2);
});

it("opens a fresh link when Slack sends disconnect, and reports reconnecting while it cannot", async () => {
  h = await startSlackHarness({ rateLimits: false });
  const adapter = h.socketAdapter();
  const rec = new RecordingHandler();
  await adapter.start(rec);
  h.server.failNext({ method: 'apps.connections.open', times: 1, with: { httpStatus: 503 } });
  h.server.socketDisconnect('refresh_requested');
  await h.server.waitFor(() => h.server.callsTo('apps.connections.open').some((c) => c.status === 503) || undefined, 5000, 'a failed reconnect');
  expect(adapter.health()).toMatchObject({ state: 'reconnecting', detail: expect.stringContaining('refresh_requested') });
  await h.server.waitFor(() => (openLinks().length === 1 && openLinks()[0].id !== 1) || undefined, 10_000, 'the fresh link');
  h.server.mention(h.server.defaultChannel, h.server.defaultUser, 'after the refresh');
  await rec.waitFor(() => rec.messages[0], 'delivered on the new link');
  expect(adapter.health()).toMatchObject({ state: 'connected', lastEventAt: expect.any(Number) });
  // one link serves: a pending retry of the failed attempt does not open another
  expect(openLinks()).toHaveLength(1);

  await adapter.stop();
  await adapter.stop();
  await h.server.waitFor(() => openLinks().length === 0 || undefined, 5000, 'all links closed');
  expect(adapter.health().state).toBe('failed');
});
