/**
 * listenAdmin binds where asked (port 0 = any), reports the bound address, refuses a taken port with a
 * message naming it and releases the port on close; createLogger censors credentials in logged objects.
 */
import { SecretRedactor } from '../../../src/adapters/render/redactor';
import { createLogger, REDACTED } from '../../../src/gateway/logger';
import { listenAdmin } from '../../../src/gateway/admin';

const hello = (_req: unknown, res: { end: (s: string) => void }) => res.end('hi');

describe('listenAdmin', () => {
  it('listens on 127.0.0.1, serves, and frees the port on close', async () => {
    const l = await listenAdmin(hello as never, { host: '127.0.0.1', port: 0 });
    expect(l.host).toBe('127.0.0.1');
    expect(l.port).toBeGreaterThan(0);
    expect(l.url).toBe(`http://127.0.0.1:${l.port}`);
    expect(await (await fetch(l.url)).text()).toBe('hi');
    await l.close();
    await l.close();
    const again = await listenAdmin(hello as never, { host: '127.0.0.1', port: l.port });
    await again.close();
  });

  it('rejects a port in use with the address in the message', async () => {
    const l = await listenAdmin(hello as never, { host: '127.0.0.1', port: 0 });
    try {
      await expect(listenAdmin(hello as never, { host: '127.0.0.1', port: l.port })).rejects.toThrow(`cannot listen on 127.0.0.1:${l.port}: the address is in use`);
    } finally {
      await l.close();
    }
  });
});

describe('createLogger', () => {
  it('censors authorization headers, tokens, keys and secrets', () => {
    let out = '';
    const log = createLogger({ logging: { level: 'info' } }, { write: (s: string) => void (out += s) });
    log.info(
      {
        req: { headers: { authorization: 'Bearer sekret-1' } },
        headers: { authorization: 'Bot sekret-2' },
        config: { telegram: { bot_token: 'sekret-3' }, model: { api_key: 'sekret-4' } },
        token: 'sekret-5',
        slack: { signing_secret: 'sekret-6', app_token: 'sekret-7' },
        keep: 'visible',
      },
      'hello',
    );
    expect(out).not.toMatch(/sekret/);
    expect(out).toContain('visible');
    expect(out.split(REDACTED).length - 1).toBe(7);
  });

  it('honours the configured level', () => {
    let out = '';
    const log = createLogger({ logging: { level: 'warn' } }, { write: (s: string) => void (out += s) });
    log.info('quiet');
    log.warn('loud');
    expect(out).not.toContain('quiet');
    expect(out).toContain('loud');
  });

  it('with a redactor masks known secret values wherever they appear in a line', () => {
    let out = '';
    const redactor = new SecretRedactor();
    const log = createLogger({ logging: { level: 'info' } }, { write: (s: string) => void (out += s) }, redactor);
    redactor.add(['vault-canary-0123456789']);
    log.info({ detail: 'tool printed vault-canary-0123456789' }, 'message with vault-canary-0123456789');
    expect(out).not.toContain('vault-canary');
    expect(out.split('[redacted]').length - 1).toBe(2);
    expect(() => JSON.parse(out)).not.toThrow();
  });
});
