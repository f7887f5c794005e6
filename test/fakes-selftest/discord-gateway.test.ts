/**
 * The fake Discord gateway driven by the real discord.js 14 client: login through GET /gateway/bot,
 * READY and GUILD_CREATE, recorded intents, privileged intents allowed or refused (4014), heartbeats,
 * a forced reconnect that RESUMEs and replays missed events, zombie detection when ACKs stop, invalid
 * sessions, fatal close codes, and zlib-stream transport compression on a raw websocket.
 */
import zlib from 'node:zlib';
import { Events, GatewayIntentBits, type Message } from 'discord.js';
import WebSocket from 'ws';
import { DEFAULT_INTENTS, noIdentifyWait, rejection, startHarness, type DiscordHarness } from './discord-harness';

let h: DiscordHarness;
afterEach(async () => {
  await h?.cleanup();
});

describe('connecting', () => {
  it('logs in, reaches ready with the guilds, and records what was identified', async () => {
    h = await startHarness();
    const client = h.client();
    const available: string[] = [];
    client.on(Events.GuildAvailable, (g) => void available.push(g.name));
    await h.login(client);

    const g = h.server.defaultGuild;
    expect(client.user?.id).toBe(h.server.applicationId);
    expect(client.application?.id).toBe(h.server.applicationId);
    expect(available).toEqual(['Fake Guild']);
    const guild = client.guilds.cache.get(g.id)!;
    expect(guild.channels.cache.map((c) => c.name).sort()).toEqual(['general', 'random']);
    expect(guild.members.me?.id).toBe(h.server.applicationId);
    expect(guild.roles.everyone.id).toBe(g.id);

    const [identify] = h.server.identifies;
    expect(identify.intents).toBe(DEFAULT_INTENTS.reduce((a, b) => a | b, 0));
    expect(identify.outcome).toBe('ready');
    expect(identify.shard).toEqual([0, 1]);
    expect(identify.compress).toBe(false);
    expect(identify.properties).toMatchObject({ browser: expect.stringContaining('@discordjs/ws') });
    const conn = h.server.gateway.connections[0];
    expect(conn.path).toBe('/gateway');
    expect(conn.query).toEqual({ v: '10', encoding: 'json' });
    expect(h.server.callsTo('getGatewayBot')).toHaveLength(1);

    const joined = new Promise<string>((resolve) => client.once(Events.GuildCreate, (x) => resolve(x.name)));
    const second = h.server.addGuild({ name: 'Second Guild', channels: ['lobby'] });
    expect(await joined).toBe('Second Guild');
    expect(client.guilds.cache.get(second.id)?.channels.cache.map((c) => c.name)).toEqual(['lobby']);
  });

  it('admits MESSAGE_CONTENT when the app has it and then shows every message in full', async () => {
    h = await startHarness({ privilegedIntents: { messageContent: true } });
    const client = await h.login(h.client({ intents: [...DEFAULT_INTENTS, GatewayIntentBits.MessageContent] }));
    expect(h.server.identifies[0].intents & GatewayIntentBits.MessageContent).toBeTruthy();
    const got = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    h.server.message('general', 'alice', 'plain words, no mention');
    expect((await got).content).toBe('plain words, no mention');
  });

  it('closes with 4014 when the app lacks a privileged intent it asks for, and login rejects', async () => {
    h = await startHarness();
    const client = h.client({ intents: [...DEFAULT_INTENTS, GatewayIntentBits.MessageContent] });
    const disconnect = new Promise<number>((resolve) => client.once(Events.ShardDisconnect, (e) => resolve(e.code)));
    const err = await rejection(client.login(h.server.token));
    expect(String(err.message)).toMatch(/disallowed intents/i);
    expect(await disconnect).toBe(4014);
    expect(h.server.identifies[0].outcome).toBe(4014);
    await h.server.waitFor(() => h.server.gateway.connections[0].closeCode === 4014 || undefined, 2000, 'server-side close');
  });

  it('rejects a wrong token at REST level before the gateway is touched', async () => {
    h = await startHarness();
    const err = await rejection(h.client().login('bm90LXRoZS10b2tlbg.XXXX.wrong'));
    expect(err.code).toBe('TokenInvalid');
    expect(h.server.callsTo('getGatewayBot')[0]).toMatchObject({ status: 401, error: { message: '401: Unauthorized', code: 0 } });
    expect(h.server.gateway.connections).toHaveLength(0);
  });
});

describe('staying connected', () => {
  it('answers heartbeats, and discord.js measures a ping', async () => {
    h = await startHarness({ gateway: { heartbeatIntervalMs: 100 } });
    const client = await h.login();
    await h.server.waitFor(() => h.server.heartbeatCount() >= 3, 3000, 'three heartbeats');
    const acks = h.server.gateway.log.filter((e) => e.dir === 'out' && e.op === 11);
    expect(acks.length).toBeGreaterThanOrEqual(2);
    await h.server.waitFor(() => client.ws.ping >= 0 || undefined, 2000, 'ping');
  });

  it('RESUMEs on the resume URL after op 7 and replays what was dispatched meanwhile', async () => {
    h = await startHarness();
    const client = await h.login();
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m.content));
    const resumed = new Promise<void>((resolve) => client.once(Events.ShardResume, () => resolve()));
    h.server.requestReconnect();
    await h.server.waitFor(() => h.server.gateway.connections[0].closed || undefined, 2000, 'old connection closed');
    h.server.mention('general', 'alice', 'sent while reconnecting');
    await resumed;
    await h.server.waitFor(() => seen.length === 1 || undefined, 2000, 'replayed message');
    expect(seen[0]).toMatch(/sent while reconnecting$/);
    const [first, second] = h.server.gateway.connections;
    expect(first.closeCode).toBe(4200);
    expect(second.path).toBe('/gateway/resume');
    expect(h.server.identifies).toHaveLength(1);
    const onSecond = h.server.gateway.log.filter((e) => e.connectionId === second.id && e.dir === 'out' && e.op === 0).map((e) => e.t);
    expect(onSecond.slice(0, 2)).toEqual(['MESSAGE_CREATE', 'RESUMED']);
    h.server.mention('general', 'bob', 'after resume');
    await h.server.waitFor(() => seen.length === 2 || undefined, 2000, 'live message');
  });

  it('detects a zombie connection when ACKs stop and resumes on a new one', async () => {
    h = await startHarness({ gateway: { heartbeatIntervalMs: 100 } });
    const client = await h.login();
    await h.server.waitFor(() => h.server.heartbeatCount() >= 1, 2000, 'first heartbeat');
    h.server.stopHeartbeatAcks();
    await h.server.waitForResume(1, 4000);
    const [zombie, fresh] = h.server.gateway.connections;
    expect(zombie.acking).toBe(false);
    expect(zombie.closeCode).toBe(4200);
    expect(fresh.acking).toBe(true);
    const got = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    h.server.dm('alice', 'still there?');
    expect((await got).content).toBe('still there?');
  });

  it('identifies again after a non-resumable INVALID_SESSION', async () => {
    h = await startHarness();
    const client = await h.login(h.client({ ws: noIdentifyWait }));
    h.server.invalidateSession(false);
    await h.server.waitForReady(2, 4000);
    expect(h.server.identifies).toHaveLength(2);
    const got = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    h.server.dm('bob', 'new session');
    expect((await got).content).toBe('new session');
  });

  it('resumes after a 4000 close and after a dropped TCP connection', async () => {
    h = await startHarness();
    await h.login();
    h.server.closeGateway(4000, 'unknown error');
    await h.server.waitForResume(1, 4000);
    h.server.dropGateway();
    await h.server.waitForResume(2, 4000);
    expect(h.server.identifies).toHaveLength(1);
  });

  it('stops for good on 4004', async () => {
    h = await startHarness();
    const client = await h.login();
    const disconnect = new Promise<number>((resolve) => client.once(Events.ShardDisconnect, (e) => resolve(e.code)));
    h.server.closeGateway(4004, 'Authentication failed.');
    expect(await disconnect).toBe(4004);
    expect(h.server.gateway.connections).toHaveLength(1);
  });
});

describe('raw websocket', () => {
  it('speaks zlib-stream transport compression with one shared context', async () => {
    h = await startHarness();
    const ws = new WebSocket(`${h.server.gatewayUrl}?v=10&encoding=json&compress=zlib-stream`);
    const inflate = zlib.createInflate();
    const frames: Array<{ op: number; t: string | null; d: any }> = [];
    let out: Buffer[] = [];
    inflate.on('data', (c: Buffer) => void out.push(c));
    // One shared inflate context; each message ends with the Z_SYNC_FLUSH suffix and is inflated in turn.
    let chain = Promise.resolve();
    let gotGuild!: () => void;
    const guildCreate = new Promise<void>((resolve) => (gotGuild = resolve));
    ws.on('message', (data: Buffer) => {
      expect(data.subarray(-4)).toEqual(Buffer.from([0, 0, 0xff, 0xff]));
      chain = chain.then(
        () =>
          new Promise<void>((resolve) => {
            inflate.write(data);
            inflate.flush(zlib.constants.Z_SYNC_FLUSH, () => {
              frames.push(JSON.parse(Buffer.concat(out).toString('utf8')));
              out = [];
              if (frames.at(-1)!.t === 'GUILD_CREATE') gotGuild();
              if (frames.length === 1) {
                ws.send(JSON.stringify({ op: 2, d: { token: h.server.token, intents: 1, properties: { os: 'linux', browser: 'raw', device: 'raw' } } }));
              }
              resolve();
            });
          }),
      );
    });
    await guildCreate;
    expect(frames[0]).toMatchObject({ op: 10, d: { heartbeat_interval: 250 } });
    expect(frames[1]).toMatchObject({ op: 0, t: 'READY', d: { guilds: [{ id: h.server.defaultGuild.id, unavailable: true }] } });
    ws.close(1000);
    await new Promise((r) => ws.once('close', r));
  });

  it('compresses dispatches per payload when IDENTIFY asks for compress, and closes 4004 / 4013 on bad identifies', async () => {
    h = await startHarness();
    const identify = (d: object) => JSON.stringify({ op: 2, d: { token: h.server.token, intents: 1, properties: { os: 'linux', browser: 'raw', device: 'raw' }, ...d } });
    const ws = new WebSocket(`${h.server.gatewayUrl}?v=10&encoding=json`);
    const ready = new Promise<any>((resolve) => {
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (!isBinary) {
          if (JSON.parse(data.toString()).op === 10) ws.send(identify({ compress: true }));
          return;
        }
        resolve(JSON.parse(zlib.inflateSync(data).toString('utf8')));
      });
    });
    expect(await ready).toMatchObject({ op: 0, t: 'READY', s: 1 });
    ws.close(1000);

    const closeWith = async (d: object): Promise<number> => {
      const sock = new WebSocket(`${h.server.gatewayUrl}?v=10&encoding=json`);
      sock.on('message', (data: Buffer) => {
        if (JSON.parse(data.toString()).op === 10) sock.send(identify(d));
      });
      return new Promise((resolve) => sock.once('close', (code) => resolve(code)));
    };
    expect(await closeWith({ token: 'wrong' })).toBe(4004);
    expect(await closeWith({ intents: 1 << 30 })).toBe(4013);
    expect(await closeWith({ shard: [1, 1] })).toBe(4010);
  });
});
