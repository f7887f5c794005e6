/**
 * AdapterLifecycle: one start from idle, a failed start back to idle (after its clean-up), stop once and
 * only after a start under way has settled, with the state 'stopped' before disconnecting.
 */
import { AdapterLifecycle } from '../../../src/adapters/contract/lifecycle';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('AdapterLifecycle', () => {
  it('runs from idle through starting to running, and refuses a second start naming the platform', async () => {
    const life = new AdapterLifecycle('Slack');
    expect(life.state).toBe('idle');
    const connect = deferred();
    const started = life.start(() => connect.promise, () => undefined);
    expect(life.state).toBe('starting');
    await expect(life.start(async () => undefined, () => undefined)).rejects.toThrow('the Slack adapter cannot start: it is starting');
    connect.resolve();
    await started;
    expect(life.state).toBe('running');
    await expect(life.start(async () => undefined, () => undefined)).rejects.toThrow('the Slack adapter cannot start: it is running');
  });

  it('a failed start cleans up with its error, returns to idle and may be tried again', async () => {
    const life = new AdapterLifecycle('Discord');
    const seen: string[] = [];
    const failing = life.start(
      async () => {
        throw new Error('token rejected');
      },
      async (err) => {
        await Promise.resolve();
        seen.push(`${life.state}: ${(err as Error).message}`);
      },
    );
    await expect(failing).rejects.toThrow('token rejected');
    expect(seen).toEqual(['starting: token rejected']);
    expect(life.state).toBe('idle');
    await life.start(async () => undefined, () => undefined);
    expect(life.state).toBe('running');
  });

  it('stops once, after a start under way has settled, already stopped when disconnecting', async () => {
    const life = new AdapterLifecycle('Telegram');
    const connect = deferred();
    void life.start(() => connect.promise, () => undefined).catch(() => undefined);
    const states: string[] = [];
    let disconnects = 0;
    const disconnect = async (): Promise<void> => {
      disconnects++;
      states.push(life.state);
    };
    const first = life.stop(disconnect);
    const second = life.stop(disconnect);
    expect(second).toBe(first);
    await new Promise((r) => setImmediate(r));
    expect(disconnects).toBe(0);
    connect.reject(new Error('cut short'));
    await first;
    expect(disconnects).toBe(1);
    expect(states).toEqual(['stopped']);
    await expect(life.start(async () => undefined, () => undefined)).rejects.toThrow('the Telegram adapter cannot start: it is stopped');
  });

  it('a stop before any start disconnects at once', async () => {
    const life = new AdapterLifecycle('Slack');
    let disconnected = false;
    await life.stop(async () => {
      disconnected = true;
    });
    expect(disconnected).toBe(true);
    expect(life.state).toBe('stopped');
  });
});
