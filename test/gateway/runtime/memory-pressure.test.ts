/**
 * Idle sessions leave memory under pressure as well as by time: past `sessions.max_in_memory` the least
 * recently active idle session goes as soon as another is opened; while the heap (an injected figure
 * here) is past its budget, each check lets a share of the idle ones go, oldest first, and never a
 * session whose Task runs. An evicted conversation resumes from its trace on its next message.
 */
import { hang, turn } from '../../fakes/openai-server';
import { startHarness, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The binding key of a web playground conversation. */
async function keyOf(g: Harness, conversation: string): Promise<string> {
  const row = (await g.gateway.store.listSessions({})).find((r) => r.binding_key?.endsWith(`:${conversation}`) || r.binding_key?.includes(`:${conversation}:`));
  if (!row?.binding_key) throw new Error(`no session for ${conversation}`);
  return row.binding_key;
}

async function exchange(g: Harness, conversation: string, text: string, answer: string): Promise<void> {
  g.model.enqueue(turn({ text: answer }));
  await g.say(conversation, text);
  await g.waitFor(`"${answer}" in ${conversation}`, () => g.botMessages(conversation).find((m) => m.final && m.text.includes(answer)));
}

describe('memory-pressure eviction', () => {
  it('holds at most max_in_memory sessions, dropping the least recently active, which resume from their traces', async () => {
    h = await startHarness({ configYaml: 'sessions:\n  max_in_memory: 2\n' });
    await exchange(h, 'a', 'the code word is heron', 'Noted: heron.');
    await exchange(h, 'b', 'hello b', 'Hi b.');
    expect(h.gateway.manager.inMemory).toBe(2);
    await exchange(h, 'c', 'hello c', 'Hi c.');
    await h.waitFor('two in memory', () => h!.gateway.manager.inMemory === 2);
    const [a, b, c] = [await keyOf(h, 'a'), await keyOf(h, 'b'), await keyOf(h, 'c')];
    expect([h.gateway.manager.holds(a), h.gateway.manager.holds(b), h.gateway.manager.holds(c)]).toEqual([false, true, true]);
    // a was the least recently active: it went, and comes back from its trace with what was said.
    await exchange(h, 'a', 'what was the code word?', 'It was heron.');
    const resumed = h.model.requests.filter((r) => (r.body as { tools?: unknown[] }).tools?.length).at(-1)!.body as { messages: { content: unknown }[] };
    expect(JSON.stringify(resumed.messages)).toContain('the code word is heron');
    await h.waitFor('two in memory', () => h!.gateway.manager.inMemory === 2);
  });

  it('lets a share of the idle sessions go while the heap is past its budget, oldest first, never a running one', async () => {
    const heap = { used: 0 };
    h = await startHarness({ memory: () => ({ heapUsed: heap.used, budget: 100 }) });
    for (const c of ['a', 'b', 'c', 'd']) await exchange(h, c, `hello ${c}`, `Hi ${c}.`);
    h.model.enqueue(hang());
    await h.say('e', 'this one keeps running');
    await h.waitFor('e running', () => h!.gateway.manager.runningCount === 1);
    expect(h.gateway.manager.inMemory).toBe(5);

    const keys = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((c) => keyOf(h!, c)));
    const held = () => keys.map((k) => h!.gateway.manager.holds(k));

    expect(await h.gateway.manager.evictIdle()).toBe(0);
    heap.used = 101;
    // 4 idle sessions: a quarter of them (one) goes per check, the least recently active first.
    expect(await h.gateway.manager.evictIdle()).toBe(1);
    expect(held()).toEqual([false, true, true, true, true]);
    expect(await h.gateway.manager.evictIdle()).toBe(1);
    expect(held()).toEqual([false, false, true, true, true]);
    expect(await h.gateway.manager.evictIdle()).toBe(1);
    expect(await h.gateway.manager.evictIdle()).toBe(1);
    expect(await h.gateway.manager.evictIdle()).toBe(0);
    expect(held()).toEqual([false, false, false, false, true]);
    expect(h.gateway.manager.inMemory).toBe(1);
    expect(h.gateway.manager.runningCount).toBe(1);
    heap.used = 0;
    await exchange(h, 'a', 'back again', 'Welcome back.');
    expect(h.gateway.manager.inMemory).toBe(2);
  });
});
