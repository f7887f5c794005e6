/**
 * AdapterLifecycle: the start/stop state every platform adapter keeps. `start(connect, onFailed)` runs
 * `connect` only from idle; a start that fails awaits `onFailed(err)`, returns to idle and rejects, so it may
 * be tried again. `stop(disconnect)` runs `disconnect` once however often it is called, after a start under
 * way has ended either way, with the state already 'stopped' (so handlers that check it drop late events).
 */

export type AdapterState = 'idle' | 'starting' | 'running' | 'stopped';

export class AdapterLifecycle {
  private current: AdapterState = 'idle';
  private starting?: Promise<void>;
  private stopping?: Promise<void>;

  /** `platform` names the adapter in the error a second start gets ("the Slack adapter cannot start: …"). */
  constructor(private readonly platform: string) {}

  get state(): AdapterState {
    return this.current;
  }

  start(connect: () => Promise<void>, onFailed: (err: unknown) => void | Promise<void>): Promise<void> {
    if (this.current !== 'idle') return Promise.reject(new Error(`the ${this.platform} adapter cannot start: it is ${this.current}`));
    this.current = 'starting';
    this.starting = connect().then(
      () => {
        if (this.current === 'starting') this.current = 'running';
      },
      async (err: unknown) => {
        await onFailed(err);
        if (this.current === 'starting') this.current = 'idle';
        throw err;
      },
    );
    return this.starting;
  }

  stop(disconnect: () => Promise<void>): Promise<void> {
    this.stopping ??= this.stopAfterStart(disconnect);
    return this.stopping;
  }

  private async stopAfterStart(disconnect: () => Promise<void>): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.current = 'stopped';
    await disconnect();
  }
}
