/**
 * Property (issue "Nothing lost when the index is lost"): for random sequences of conversations, `/new`,
 * mode changes (in chat and by the operator), tool approvals and denials, compactions and failed requests,
 * a gateway started after its index was lost (gateway.db deleted, or on PostgreSQL the schema emptied) shows the same `/api/sessions`, `/api/usage` (every
 * grouping) and bindings as the index the live gateway kept, and the next message in each conversation
 * continues the same session.
 */
import fc from 'fast-check';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAIServer, httpError, turn, type RecordedRequest, type ScriptedResponse } from '../../fakes/openai-server';
import { describeBackends } from '../store/helpers';
import { startHarness, type Harness } from './harness';
import { indexSnapshot } from './index-snapshot';

const CONVERSATIONS = ['c0', 'c1', 'c2'] as const;
const SUMMARIZE = 'SUMMARIZE-THE-CONVERSATION-NOW';
const MODES = ['allow-all', 'deny-all', 'read-only', 'always-ask'] as const;
/** The reconnect ladder without its waits. */
const instant = { now: () => Date.now(), sleep: async () => undefined };

type Action =
  | { kind: 'say'; conv: number; what: 'plain' | 'fail' | 'tool-allow' | 'tool-deny' }
  | { kind: 'new'; conv: number }
  | { kind: 'operator-mode'; conv: number; mode: (typeof MODES)[number] }
  | { kind: 'chat-mode'; conv: number; mode: (typeof MODES)[number] };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('say' as const), conv: fc.nat(2), what: fc.constantFrom('plain' as const, 'fail' as const, 'tool-allow' as const, 'tool-deny' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('new' as const), conv: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('operator-mode' as const), conv: fc.nat(2), mode: fc.constantFrom(...MODES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('chat-mode' as const), conv: fc.nat(2), mode: fc.constantFrom(...MODES) }) },
);

/** The text of a chat-completions message (string content or text parts). */
function textOf(m: { content?: unknown }): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p: { text?: string }) => p.text ?? '').join('');
  return '';
}

/** What the test is doing now: steps run one at a time, so the model answers the current one. */
interface Script {
  step: string;
  said: string;
  failed: Set<string>;
}

/**
 * The model: answers the current step; fails a FAIL step's first request; calls a tool for a TOOL step
 * and answers once its output (or a summary of the context) comes back.
 */
function scriptedModel(sc: Script): (req: RecordedRequest) => ScriptedResponse {
  const usage = { prompt_tokens: 30, completion_tokens: 4 };
  return (req) => {
    const msgs = (req.body?.messages ?? []) as { role: string; content?: unknown }[];
    const last = msgs.at(-1)!;
    if (last.role === 'user' && textOf(last).includes(SUMMARIZE)) return turn({ text: '[summary]they worked through some steps[/summary]', usage });
    const { step, said, failed } = sc;
    const toolRan = msgs.some((m) => m.role === 'tool' && textOf(m).length > 0 && msgs.indexOf(m) > msgs.findLastIndex((x) => x.role === 'user' && textOf(x).includes(step)));
    if (last.role === 'tool' || toolRan || !msgs.some((m) => m.role === 'user' && textOf(m).includes(step))) return turn({ text: `Done ${step}.`, usage });
    if (said.includes('FAIL') && !failed.has(step)) {
      failed.add(step);
      return httpError(500);
    }
    if (said.includes('TOOL')) return turn({ text: 'Running it.', toolCalls: [{ id: `call_${step.replace('-', '_')}`, name: 'exec_command', arguments: JSON.stringify({ description: 'print the step', cmd: `echo ${step}` }) }], usage });
    return turn({ text: `Done ${step}.`, usage });
  };
}

async function perform(h: Harness, sc: Script, a: Action, step: number): Promise<void> {
  const conv = CONVERSATIONS[a.conv];
  if (a.kind === 'new' || a.kind === 'chat-mode') {
    const before = h.botMessages(conv).length;
    await h.say(conv, a.kind === 'new' ? '/new' : `/mode ${a.mode}`);
    await h.waitFor(`${a.kind} answered in ${conv}`, () => h.botMessages(conv).length > before);
    return;
  }
  if (a.kind === 'operator-mode') {
    const sid = await h.gateway.store.resolveBinding(`web:${conv}`);
    if (sid) expect((await h.api(`/api/sessions/${sid}`, { method: 'PATCH', body: { approval_mode: a.mode } })).status).toBe(200);
    return;
  }
  const marker = `step-${step}`;
  const extra = { plain: '', fail: ' FAIL', 'tool-allow': ' TOOL', 'tool-deny': ' TOOL' }[a.what];
  sc.step = marker;
  sc.said = `${marker}${extra}`;
  await h.say(conv, sc.said);
  const done = () => h.botMessages(conv).find((m) => m.final && m.buttons.length === 0 && m.text.includes(`Done ${marker}.`));
  const card = () => h.botMessages(conv).find((m) => m.text.includes(`echo ${marker}`) && m.buttons.some((b) => b.label === 'Allow'));
  const first = await h.waitFor(`${marker} answered or asking`, () => done() ?? card());
  if (first.buttons.some((b) => b.label === 'Allow')) {
    const button = first.buttons.find((b) => b.label === (a.what === 'tool-deny' ? 'Deny' : 'Allow'))!;
    await h.web.click(conv, first.id, button.payload, { id: 'admin', name: 'admin' });
  }
  await h.waitFor(`${marker} done`, done);
}

describeBackends('reindex from the files equals the live index', (backend) => {
  let model: FakeOpenAIServer;
  const sc: Script = { step: '', said: '', failed: new Set() };
  beforeAll(async () => {
    model = new FakeOpenAIServer({ apiKey: 'sk-test', defaultResponse: scriptedModel(sc), untooled: turn({ text: 'A short title', usage: { prompt_tokens: 9, completion_tokens: 3 } }) });
    await model.start();
  });
  afterAll(() => model.stop());

  it('for random conversations, /new, modes, approvals, compactions and failures', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 8 }), async (actions) => {
        const home = await mkdtemp(join(tmpdir(), 'pg-prop-'));
        const state = join(home, 'data', 'default_project', 'agents', 'default_agent', 'agent_state');
        mkdirSync(state, { recursive: true });
        writeFileSync(join(state, 'system_config.yaml'), `system_prompt: You help.\ncompaction:\n  max_session_turns: 2\n  prompt: ${SUMMARIZE}\n`);
        sc.failed.clear();
        model.reset();
        const target = await backend.target(join(home, 'data'));
        const env = target.where.databaseUrl ? { PENGUIN_DATABASE_URL: target.where.databaseUrl } : undefined;
        const start = () => startHarness({ home, model, engineClock: instant, ...(env ? { env } : {}) });
        let h: Harness | undefined;
        try {
          h = await start();
          for (const [i, a] of actions.entries()) await perform(h, sc, a, i);
          await h.close();

          h = await start();
          const live = await indexSnapshot(h, CONVERSATIONS);
          await h.close();
          h = undefined;
          await target.lose();

          h = await start();
          const rebuilt = await indexSnapshot(h, CONVERSATIONS);
          expect(rebuilt).toEqual(live);
          for (const conv of CONVERSATIONS) {
            const bound = live.bindings[conv];
            if (!bound) continue;
            await perform(h, sc, { kind: 'say', conv: CONVERSATIONS.indexOf(conv), what: 'plain' }, 100);
            expect(await h.gateway.store.resolveBinding(`web:${conv}`)).toBe(bound);
          }
        } finally {
          await h?.close();
          rmSync(home, { recursive: true, force: true });
        }
      }),
      { numRuns: 15 },
    );
  }, 240_000);
});
