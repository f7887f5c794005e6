/**
 * read_image / describe_image: loading from paths, URLs (a local HTTP server) and data URLs, format
 * sniffing, the 5 MB limit, the vision/text-only choice, and the injected vision describer.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { VisionDescriberService } from '../../../src/core/interfaces';
import { TINY_PNG_BASE64 } from '../../fakes/mcp-http-server';
import { call, makeEnv, removeTempDirs } from './helpers';

const PNG = Buffer.from(TINY_PNG_BASE64, 'base64');
const PNG_URL = `data:image/png;base64,${TINY_PNG_BASE64}`;

let server: http.Server;
let base = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/pic') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PNG);
    else if (req.url === '/huge') res.writeHead(200).end(Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]));
    else if (req.url === '/text') res.writeHead(200).end('not an image');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  removeTempDirs();
});

describe('read_image (vision model)', () => {
  const { env, workspace } = makeEnv({ vision: true });
  afterAll(() => env.dispose());

  test('a path gives a short text and the image, sniffed from the bytes', async () => {
    writeFileSync(path.join(workspace, 'pic.dat'), PNG);
    const { out, msgs } = await call(env, 'read_image', { source: 'pic.dat' });
    expect(out).toMatchObject({ stop_reason: 'completed', images: [PNG_URL] });
    expect(out.output).toBe(`Loaded image ${path.join(workspace, 'pic.dat')} (image/png, ${PNG.length} bytes).`);
    expect(msgs[msgs.length - 3].payload).toMatchObject({ event_type: 'delta', images: [PNG_URL] });
  });

  test('an http URL is fetched', async () => {
    const { out } = await call(env, 'read_image', { source: `${base}/pic` });
    expect(out.images).toEqual([PNG_URL]);
  });

  test('other formats, missing files, HTTP errors and images over 5 MB are refused', async () => {
    writeFileSync(path.join(workspace, 'notes.txt'), 'hello');
    writeFileSync(path.join(workspace, 'big.png'), Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]));
    const cases: [string, string][] = [
      ['notes.txt', 'not a supported image'],
      ['missing.png', 'File not found'],
      ['big.png', 'larger than 5 MB'],
      [`${base}/nothing`, 'HTTP 404'],
      [`${base}/huge`, 'larger than 5 MB'],
      [`${base}/text`, 'not a supported image'],
    ];
    for (const [source, text] of cases) {
      const { out } = await call(env, 'read_image', { source });
      expect(out.stop_reason).toBe('failed');
      expect(out.output).toContain(text);
      expect(out.images).toBeUndefined();
    }
  });

  test('jpeg, gif and webp are recognised', async () => {
    const samples: [string, Buffer][] = [
      ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
      ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
      ['image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')])],
    ];
    for (const [mime, bytes] of samples) {
      const { out } = await call(env, 'read_image', { source: `data:application/octet-stream;base64,${bytes.toString('base64')}` });
      expect(out.images?.[0].startsWith(`data:${mime};base64,`)).toBe(true);
    }
  });

  test('describe_image is not offered to a vision model', async () => {
    const names = (await env.listTools()).map((t) => t.name);
    expect(names).toContain('read_image');
    expect(names).not.toContain('describe_image');
    const { out } = await call(env, 'describe_image', { source: 'x' });
    expect(out).toMatchObject({ output: 'Unknown tool: describe_image', stop_reason: 'failed' });
  });
});

describe('describe_image (text-only model)', () => {
  test('asks the vision describer with the prompt and returns its text', async () => {
    const seen: { image: string; prompt: string }[] = [];
    const vision: VisionDescriberService = {
      modelId: 'vision-1',
      describe: async (image, prompt) => {
        seen.push({ image, prompt });
        return 'A single transparent pixel.';
      },
    };
    const { env, workspace } = makeEnv({ vision: false, services: { visionDescriber: vision } });
    writeFileSync(path.join(workspace, 'p.png'), PNG);
    const names = (await env.listTools()).map((t) => t.name);
    expect(names).toContain('describe_image');
    expect(names).not.toContain('read_image');
    const { out } = await call(env, 'describe_image', { source: 'p.png', prompt: 'What colour?' });
    expect(out).toMatchObject({ output: 'A single transparent pixel.', stop_reason: 'completed' });
    expect(out.images).toBeUndefined();
    expect(seen).toEqual([{ image: PNG_URL, prompt: 'What colour?' }]);
    await env.dispose();
  });

  test('without a vision model it fails', async () => {
    const { env } = makeEnv({ vision: false, services: { visionDescriber: { modelId: null } } });
    const { out } = await call(env, 'describe_image', { source: PNG_URL });
    expect(out.stop_reason).toBe('failed');
    expect(out.output).toContain('No vision model');
    const none = makeEnv({ vision: false });
    expect((await call(none.env, 'describe_image', { source: PNG_URL })).out.stop_reason).toBe('failed');
    await env.dispose();
    await none.env.dispose();
  });
});
