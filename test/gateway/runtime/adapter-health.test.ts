/**
 * The liveness canary as the operator sees it: an adapter that reports its connection reconnecting (a
 * silent Socket Mode link, a stopped poll loop) or failed makes /readyz 503 with the reason, shows as
 * `adapter_up 0` in /metrics, and recovers both once the adapter says it is connected again.
 */
import { FakeChatAdapter } from './fake-chat-adapter';
import { startHarness, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

test('/readyz and /metrics follow what a started adapter says about its connection', async () => {
  const chat = new FakeChatAdapter();
  h = await startHarness({ extra: () => [{ adapter: chat }] });
  const metric = async () => /penguin_gateway_adapter_up\{platform="telegram"\} (\d)/.exec((await h!.api('/metrics')).body)?.[1];
  expect((await h.api('/readyz')).status).toBe(200);
  expect(await metric()).toBe('1');

  chat.healthNow = { state: 'reconnecting', detail: 'no events for 10 min: reopening the connection', lastEventAt: 1_000 };
  const r = await h.api('/readyz');
  expect(r.status).toBe(503);
  expect(r.body.adapters).toContainEqual(expect.objectContaining({ name: 'telegram', state: 'connecting', detail: 'no events for 10 min: reopening the connection', last_inbound_at: 1_000 }));
  expect(await metric()).toBe('0');

  chat.healthNow = { state: 'connected' };
  expect((await h.api('/readyz')).status).toBe(200);
  expect(await metric()).toBe('1');
});
