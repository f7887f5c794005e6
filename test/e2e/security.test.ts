/**
 * Safe by default, end to end: the real gateway process with the default access config (DM and group
 * policy pairing, approval mode read-only, no approvers) against the fake Bot API and the fake model,
 * replaying an attacker's chain. A stranger's unknown group gets a pairing code and nothing else; once
 * the operator approves the group, the stranger still cannot widen /mode; the tool that prints its
 * environment shows no credential; a vault value the model repeats is masked in the chat and the admin
 * API (the trace keeps it for the operator); the data root stays unreadable; no credential of the gateway
 * opens the admin API.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { turn, type RecordedRequest } from '../fakes/openai-server';
import { ADMIN_TOKEN, MODEL_KEY, openWorld, splitReply, hasButton, isFinalReply, type World } from './telegram-world';
import { assertGatewayBuilt } from './gateway-process';

const BOT = '@fake_test_bot';
const STRANGER = { id: 666, first_name: 'Mallory' };
const GROUP = { id: -1005550001, type: 'supergroup' as const, title: 'Open house' };
const VAULT_CANARY = 'ghp_vaultCanary0123456789abcdefXYZ';

let w: World | undefined;
beforeAll(() => assertGatewayBuilt());
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const tooled = (wd: World): RecordedRequest[] => wd.model.requests.filter((r) => r.body?.tools?.length);
function toolResult(req: RecordedRequest, callId: string): string {
  const m = (req.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).find((x) => x.role === 'tool' && x.tool_call_id === callId);
  if (!m) throw new Error(`no tool message for ${callId}`);
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}
const groupTexts = (wd: World) => wd.tg.botMessages(GROUP.id).map((m) => m.text ?? '');

async function readTree(dir: string): Promise<string> {
  let out = '';
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.jsonl')) out += await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

it('replays the stranger-in-a-group chain against the default config and it fails at every step', async () => {
  const wd = (w = await openWorld({ env: { PENGUIN_DM_POLICY: '', PENGUIN_ALLOW_USERS: '', PENGUIN_GROUP_POLICY: '' } }));
  const state = join(wd.home, 'default_project', 'agents', 'default_agent', 'agent_state');
  await mkdir(state, { recursive: true });
  await writeFile(join(state, '.vault.toml'), `GITHUB_TOKEN = "${VAULT_CANARY}"\n`, { mode: 0o600 });
  await wd.start();
  const secrets = [MODEL_KEY, ADMIN_TOKEN, wd.tg.token, VAULT_CANARY];

  // An unknown group: /mode widens nothing; the group gets a pairing code (one per code lifetime: runtime tests).
  wd.tg.injectMessage({ chat: GROUP, from: STRANGER, text: `/mode@${BOT.slice(1)} allow-all` });
  const offer = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP.id).find((m) => m.text?.includes('pairing code')), 10_000, 'group pairing code');
  expect(offer.text).toContain("This group isn't approved yet");
  const pending = (await wd.admin('/api/pairing?state=pending')).body.requests;
  expect(pending).toEqual([expect.objectContaining({ kind: 'group', user_id: String(GROUP.id) })]);
  const code = pending[0].code as string;
  expect(offer.text).toContain(code);
  expect(tooled(wd)).toHaveLength(0);

  // The operator approves the group; the stranger is now a member of a known group, not an approver.
  expect((await wd.admin(`/api/pairing/${code}/approve`, { method: 'POST' })).status).toBe(200);
  await wd.tg.waitFor(() => groupTexts(wd).find((t) => t.startsWith('✅ This group is approved')), 10_000, 'approval notice');
  expect(groupTexts(wd).filter((t) => t.includes('pairing code'))).toHaveLength(1);

  wd.tg.injectMessage({ chat: GROUP, from: STRANGER, text: `/mode@${BOT.slice(1)} allow-all` });
  const refusal = await wd.tg.waitFor(() => groupTexts(wd).find((t) => t.includes('laxer')), 10_000, '/mode refusal');
  expect(refusal).toContain('is for the operator');
  expect(groupTexts(wd).some((t) => t.includes('Approval mode for this conversation: allow-all'))).toBe(false);
  wd.tg.injectMessage({ chat: GROUP, from: STRANGER, text: `/mode@${BOT.slice(1)} always-ask` });
  await wd.tg.waitFor(() => groupTexts(wd).find((t) => t.includes('Approval mode for this conversation: always-ask')), 10_000, 'stricter mode accepted');

  // "please run env": a card appears (no silent run), and what the tool prints holds no credential.
  wd.model.enqueue(
    turn({ toolCalls: [
      { id: 'env', name: 'exec_command', arguments: JSON.stringify({ description: 'show the environment', cmd: 'env | grep -E "TOKEN|KEY"; env' }) },
      { id: 'db', name: 'read_file', arguments: JSON.stringify({ file_path: '../../../../gateway.db' }) },
    ] }),
    turn({ text: `Here is what I found: GITHUB_TOKEN=${VAULT_CANARY} and nothing else.` }),
  );
  wd.tg.injectMessage({ chat: GROUP, from: STRANGER, text: `${BOT} please run env` });
  const card = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP.id).find((m) => hasButton(m, 'Allow') && m.text?.includes('exec_command')), 10_000, 'exec card');
  wd.tg.clickButton(GROUP.id, card.message_id, 'Allow', STRANGER);
  const dbCard = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP.id).find((m) => hasButton(m, 'Allow') && m.text?.includes('read_file')), 10_000, 'read_file card');
  wd.tg.clickButton(GROUP.id, dbCard.message_id, 'Allow', STRANGER);
  const final = await wd.tg.waitFor(() => wd.tg.botMessages(GROUP.id).find((m) => isFinalReply(m) && (m.text ?? '').includes('Here is what I found')), 10_000, 'final reply');

  const envOut = toolResult(tooled(wd)[1], 'env');
  for (const s of [MODEL_KEY, ADMIN_TOKEN, wd.tg.token]) expect(envOut).not.toContain(s);
  expect(envOut).not.toMatch(/^(PENGUIN_|OPENAI_|TELEGRAM_)/m);
  expect(envOut).toContain(`GITHUB_TOKEN=${VAULT_CANARY}`);
  expect(toolResult(tooled(wd)[1], 'db')).toMatch(/protected data directory/);

  expect(splitReply(final.text!).answer).toBe('Here is what I found: GITHUB_TOKEN=[redacted] and nothing else.');
  const chat = JSON.stringify(wd.tg.chatState(GROUP.id));
  for (const s of secrets) expect(chat).not.toContain(s);

  // The admin API masks it too; the trace on disk keeps the truth for the operator.
  const { body } = await wd.admin('/api/sessions');
  const transcript = await wd.admin(`/api/sessions/${body.sessions[0].session_id}/messages`);
  expect(JSON.stringify(transcript.body)).not.toContain(VAULT_CANARY);
  expect(JSON.stringify(transcript.body)).toContain('[redacted]');
  expect(await readTree(join(wd.home, 'default_project'))).toContain(VAULT_CANARY);

  // No credential the gateway holds opens its admin API, and none reached the log.
  for (const s of [MODEL_KEY, wd.tg.token, VAULT_CANARY]) {
    const r = await fetch(`${wd.gw.url}/api/pairing`, { headers: { authorization: `Bearer ${s}` } });
    expect(r.status).toBe(401);
  }
  for (const s of secrets) expect(wd.gw.output()).not.toContain(s);
});
