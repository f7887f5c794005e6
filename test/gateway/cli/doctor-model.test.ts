/**
 * doctor's model check against the fake OpenAI-compatible server on 127.0.0.1 (real SDK, real HTTP): it
 * resolves each routed agent's model as the gateway does (PENGUIN_MODEL, OPENAI_*, the project file) and
 * makes the gateway's request — /models, then a one-token chat completion when /models does not list the
 * model — failing whenever start could not answer. It never prints a key and never writes a file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadAgentState } from '../../../src/core/state';
import { errorBody, FakeOpenAIServer, hang, httpError } from '../../fakes/openai-server';
import { cliEnv, type CliEnv } from './helpers';

const KEY = 'sk-doctor-good-key-123';
const WRONG = 'sk-doctor-wrong-key-456';

let server: FakeOpenAIServer;
let c: CliEnv;

async function serve(opts: ConstructorParameters<typeof FakeOpenAIServer>[0] = {}): Promise<string> {
  server = new FakeOpenAIServer(opts);
  return (await server.start()).baseUrl;
}

beforeEach(() => {
  c = cliEnv();
});
afterEach(async () => {
  c.cleanup();
  await server?.stop();
});

/** The output lines of the model check(s). */
function modelLines(out: string): string[] {
  return out.split('\n').filter((l) => /^. model\b/.test(l));
}
function fixAfter(out: string, line: string): string {
  const lines = out.split('\n');
  const next = lines[lines.indexOf(line) + 1] ?? '';
  return next.trim().startsWith('→') ? next.trim().slice(2) : '';
}

/** path → sha256 of every file under dir (directories as entries too). */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        out[`${relative(dir, p)}/`] = String(statSync(p).mode);
        walk(p);
      } else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

const chats = () => server.requests.filter((r) => r.path.endsWith('/chat/completions'));

it('fails without a key for a public endpoint, with the fix, as start would refuse to answer', async () => {
  await serve();
  c.env.PENGUIN_MODEL = 'gpt-4o-mini';
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const [line] = modelLines(r.stdout);
  expect(line).toBe('✗ model        no model endpoint is configured (openai/gpt-4o-mini at https://api.openai.com/v1 has no API key): start answers every message with "I can\'t answer yet" (default_project does not exist yet: start creates it with this model)');
  expect(fixAfter(r.stdout, line)).toMatch(/^set api_key of openai\/gpt-4o-mini in .*default_project\/\.project_config\.toml, or OPENAI_API_KEY with OPENAI_BASE_URL=https:\/\/api\.openai\.com\/v1 \(the environment's key is sent only to OPENAI_BASE_URL/);
  expect(fixAfter(r.stdout, line)).not.toContain('penguin-gateway doctor');
  expect(r.stdout).toMatch(/\n1 check failed\.\n$/);

  // nothing set at all: the default project's seeded DeepSeek entry, keyless, is refused the same way
  delete c.env.PENGUIN_MODEL;
  const bare = await c.run(['doctor']);
  expect(bare.code).toBe(1);
  expect(modelLines(bare.stdout)[0]).toMatch(/^✗ model +no model endpoint is configured \(deepseek\/deepseek-v4-flash at https:\/\/api\.deepseek\.com has no API key\)/);
});

it('fails when the endpoint rejects the key, saying which key to set, without printing it', async () => {
  const base = await serve({ apiKey: KEY, models: ['gpt-test'] });
  Object.assign(c.env, { OPENAI_API_KEY: WRONG, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'gpt-test' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const [line] = modelLines(r.stdout);
  expect(line).toBe(`✗ model        ${base} rejected the API key for openai/gpt-test (HTTP 401: Incorrect API key provided) (default_project does not exist yet: start creates it with this model)`);
  expect(fixAfter(r.stdout, line)).toBe(`set OPENAI_API_KEY to a valid key for ${base}`);
  expect(r.stdout).not.toContain(WRONG);
  expect(server.requests.map((q) => [q.method, q.path, q.headers.authorization])).toEqual([['GET', '/v1/models', `Bearer ${WRONG}`]]);
});

it('passes when /models lists the model, without spending a completion', async () => {
  const base = await serve({ apiKey: KEY, models: ['gpt-test', 'gpt-mini'] });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'gpt-test' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(modelLines(r.stdout)).toEqual([`✓ model        openai/gpt-test at ${base} accepted the key; /models lists gpt-test (2 models) (default_project does not exist yet: start creates it with this model)`]);
  expect(r.stdout).not.toContain(KEY);
  expect(chats()).toEqual([]);
});

it('fails when PENGUIN_MODEL is not listed and the endpoint refuses it, naming the ids it serves', async () => {
  const base = await serve({ apiKey: KEY, models: ['gpt-test', 'gpt-mini'] });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'nope' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const [line] = modelLines(r.stdout);
  expect(line).toBe(`✗ model        model nope not found at ${base} (HTTP 404: The model \`nope\` does not exist or you do not have access to it.; /models does not list nope) (default_project does not exist yet: start creates it with this model)`);
  expect(fixAfter(r.stdout, line)).toBe('set PENGUIN_MODEL to one of: gpt-test, gpt-mini');
  // the gateway's request: its key, its model id, one user message, at most one token
  expect(chats()).toHaveLength(1);
  expect(chats()[0].headers.authorization).toBe(`Bearer ${KEY}`);
  expect(chats()[0].body).toMatchObject({ model: 'nope', messages: [{ role: 'user', content: 'ping' }], max_completion_tokens: 1, stream: true });
});

it('passes an endpoint without /models when the model answers a one-token request', async () => {
  const base = await serve({ apiKey: KEY });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'my-model' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(modelLines(r.stdout)[0]).toMatch(new RegExp(`^✓ model +openai/my-model at ${base} answered a one-token request \\(/models: HTTP 404\\)`));
  expect(chats().map((q) => q.body.model)).toEqual(['my-model']);
});

it('leaves its report readable when the key is a short placeholder', async () => {
  const base = await serve({ apiKey: KEY });
  // A placeholder as local servers are often given: masking it everywhere would cut into every word.
  Object.assign(c.env, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: base, PENGUIN_MODEL: 'my-model' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const [line] = modelLines(r.stdout);
  expect(line).toMatch(new RegExp(`^✗ model +${base} rejected the API key for openai/my-model \\(HTTP 401: Incorrect API key provided\\)`));
  expect(fixAfter(r.stdout, line!)).toBe(`set OPENAI_API_KEY to a valid key for ${base}`);
});

it('fails an endpoint without /models whose completion rejects the key', async () => {
  const base = await serve({ apiKey: KEY });
  Object.assign(c.env, { OPENAI_API_KEY: WRONG, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'my-model' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const [line] = modelLines(r.stdout);
  expect(line).toMatch(new RegExp(`^✗ model +${base} rejected the API key for openai/my-model \\(HTTP 401: Incorrect API key provided\\)`));
  expect(fixAfter(r.stdout, line)).toBe(`set OPENAI_API_KEY to a valid key for ${base}`);
  expect(r.stdout).not.toContain(WRONG);
});

it('passes a keyless endpoint on this machine that answers, sending no credential', async () => {
  const base = await serve();
  Object.assign(c.env, { OPENAI_BASE_URL: base, PENGUIN_MODEL: 'llama3' });
  const r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(modelLines(r.stdout)[0]).toMatch(new RegExp(`^✓ model +openai/llama3 at ${base} answered a one-token request without a key \\(/models: HTTP 404\\)`));
  expect(server.requests.length).toBeGreaterThan(0);
  for (const q of server.requests) expect(q.headers.authorization).toBeUndefined();
});

it('warns when the provider is in trouble, fails when it never answers', async () => {
  const base = await serve({ apiKey: KEY });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'my-model' });
  server.enqueue(httpError(503, errorBody('overloaded, try later')));
  let r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(modelLines(r.stdout)[0]).toMatch(/^! model +.* could not answer a one-token request for openai\/my-model \(HTTP 503: overloaded, try later\): provider trouble/);

  server.enqueue(hang());
  r = await c.run(['doctor', '--timeout', '300']);
  expect(r.code).toBe(1);
  expect(modelLines(r.stdout)[0]).toMatch(new RegExp(`^✗ model +${base} did not answer a one-token request for openai/my-model: no answer within 300 ms`));
});

it('checks each distinct routed agent\'s model from its own project file, one line per model', async () => {
  const base = await serve({ apiKey: KEY, models: ['gpt-test', 'gpt-mini'] });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'gpt-test' });
  const team = join(c.home, 'team');
  mkdirSync(team, { recursive: true });
  const teamFile = join(team, '.project_config.toml');
  writeFileSync(teamFile, `default_model = { provider = "custom", model_id = "gpt-gone" }\n\n[[models]]\nprovider = "custom"\nmodel_id = "gpt-gone"\nbase_url = "${base}"\napi_key = "${KEY}"\n`, { mode: 0o600 });
  const cfg = join(c.dir, 'gateway.yaml');
  writeFileSync(cfg, [
    'routes:',
    '  - { name: a, match: { platform: telegram, chat: "1" }, project: team, agent: helper }',
    '  - { name: b, match: { platform: telegram, chat: "2" }, project: team, agent: helper }',
    '  - { name: c, match: { platform: telegram, chat: "3" }, project: default_project, agent: other }',
    '',
  ].join('\n'));
  c.env.PENGUIN_GATEWAY_CONFIG = cfg;
  const r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const lines = modelLines(r.stdout);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(new RegExp(`^✓ model default_project/default_agent +openai/gpt-test at ${base} accepted the key; /models lists gpt-test \\(2 models\\) \\(used by default_project/default_agent, default_project/other; default_project does not exist yet`));
  expect(lines[1]).toMatch(new RegExp(`^✗ model team/helper +model gpt-gone not found at ${base} \\(HTTP 404`));
  expect(fixAfter(r.stdout, lines[1])).toBe(`set model_id of custom/gpt-gone (and default_model) in ${teamFile} to one of: gpt-test, gpt-mini`);
  expect(r.stdout).not.toContain(KEY);
});

it('fails an agent start could not load, and a model in a protocol the gateway does not speak', async () => {
  const base = await serve({ apiKey: KEY, models: ['claude-x'] });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base });
  const file = join(c.home, 'default_project', '.project_config.toml');
  mkdirSync(join(c.home, 'default_project'), { recursive: true });
  writeFileSync(file, 'default_model = "not a table"\n');
  let r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  expect(modelLines(r.stdout)[0]).toMatch(/^✗ model +agent default_project\/default_agent cannot be loaded: .*\.project_config\.toml.*default_model/);

  writeFileSync(file, 'default_model = { provider = "anthropic", model_id = "claude-x" }\n\n[[models]]\nprovider = "anthropic"\nmodel_id = "claude-x"\nclient_type = "ant-messages"\n');
  r = await c.run(['doctor']);
  expect(r.code).toBe(1);
  const [line] = modelLines(r.stdout);
  expect(line).toMatch(/^✗ model +anthropic\/claude-x cannot be called: client_type "ant-messages" is not supported/);
  expect(fixAfter(r.stdout, line)).toBe(`set client_type of anthropic/claude-x in ${file} to openai-chat, the protocol this gateway speaks`);
  expect(server.requests).toEqual([]);
});

it('writes nothing into the data root: not a first project, not the model a session would record', async () => {
  const base = await serve({ apiKey: KEY, models: ['gpt-test'] });
  Object.assign(c.env, { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: base, PENGUIN_MODEL: 'gpt-test' });
  mkdirSync(c.home);
  let r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(readdirSync(c.home)).toEqual([]);

  // an existing agent whose project lists no model yet: the gateway would record PENGUIN_MODEL in it
  const made = await loadAgentState({ home: c.home, env: { PENGUIN_MODEL: 'gpt-test' }, builtinSkillsDir: null });
  expect(made.ok).toBe(true);
  const before = listing(c.home);
  r = await c.run(['doctor']);
  expect(r.code).toBe(0);
  expect(modelLines(r.stdout)).toEqual([`✓ model        openai/gpt-test at ${base} accepted the key; /models lists gpt-test (1 model)`]);
  expect(listing(c.home)).toEqual(before);
});
