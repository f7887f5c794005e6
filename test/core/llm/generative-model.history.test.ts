/**
 * GenerativeModel history against the fake server: what each request carries. History grows only on completed
 * streams; tool results go back as `tool` messages in call order; tool_call ids stay Session-unique through the
 * shared allocator yet go out as the provider sent them; images only for vision models; setHistory (resume)
 * sends the whole grouped history.
 */
import * as b from '../../../src/core/omnimessage/builders';
import { isPayload } from '../../../src/core/omnimessage/guards';
import { ToolCallIdAllocator } from '../../../src/core/llm/tool-call-ids';
import { IMAGE_OMITTED } from '../../../src/core/llm/to-chat';
import { httpError, turn } from '../../fakes/openai-server';
import { collect, toolCalls } from './collect';
import { useFakeServer } from './fixture';

const { server, model } = useFakeServer();
const sent = (i: number) => server.requests[i].body.messages as Record<string, unknown>[];
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

test('history grows only on completed streams', async () => {
  server.enqueue(turn({ text: 'first answer' }), httpError(500), turn({ text: 'half', finish: null }), turn({ text: 'second answer' }), turn({ text: 'x' }));
  const m = model({ systemPrompt: 'You are terse.' });
  expect((await collect(m.streamGenerate({ newMessages: [b.userText('q1')] }))).outcome.status).toBe('completed');
  expect((await collect(m.streamGenerate({ newMessages: [b.userText('q2')] }))).outcome.status).toBe('timeout');
  expect((await collect(m.streamGenerate({ newMessages: [b.userText('q2')] }))).outcome.status).toBe('malformed');
  expect((await collect(m.streamGenerate({ newMessages: [b.userText('q2')] }))).outcome.status).toBe('completed');
  await collect(m.streamGenerate({ newMessages: [b.userText('q3')] }));
  const expectedPrefix = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'q1' },
    { role: 'assistant', content: 'first answer' },
  ];
  expect(sent(1)).toEqual([...expectedPrefix, { role: 'user', content: 'q2' }]);
  expect(sent(2)).toEqual(sent(1));
  expect(sent(3)).toEqual(sent(1));
  expect(sent(4)).toEqual([...expectedPrefix, { role: 'user', content: 'q2' }, { role: 'assistant', content: 'second answer' }, { role: 'user', content: 'q3' }]);
});

test('tool results go back as tool messages in call order, after the assistant tool_calls (with reasoning replayed)', async () => {
  server.enqueue(
    turn({ reasoning: 'need both files', text: 'Reading.', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"file_path":"/a"}' }, { id: 'call_2', name: 'read_file', arguments: '{"file_path":"/b"}' }] }),
    turn({ text: 'Both read.' }),
  );
  const m = model();
  await collect(m.streamGenerate({ newMessages: [b.userText('read a and b')] }));
  // outputs arrive in completion order (b first); the wire must follow call order
  await collect(m.streamGenerate({ newMessages: [
    b.toolCallOutput({ output: 'B content', tool_call_id: 'call_2', stop_reason: 'completed' }),
    b.toolCallOutput({ output: 'A content', tool_call_id: 'call_1', stop_reason: 'completed' }),
  ] }));
  expect(sent(1)).toEqual([
    { role: 'user', content: 'read a and b' },
    {
      role: 'assistant', content: 'Reading.', reasoning_content: 'need both files',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"/a"}' } },
        { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"file_path":"/b"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'A content' },
    { role: 'tool', tool_call_id: 'call_2', content: 'B content' },
  ]);
});

test('colliding provider ids get #n suffixes Session-wide, and go out without them', async () => {
  const ids = new ToolCallIdAllocator();
  const call = { id: 'call_0', name: 'exec_command', arguments: '{"cmd":"date"}' };
  server.enqueue(turn({ toolCalls: [call] }), turn({ toolCalls: [call] }), turn({ toolCalls: [call] }), turn({ text: 'done' }));
  const m = model({ toolCallIds: ids });
  const one = await collect(m.streamGenerate({ newMessages: [b.userText('go')] }));
  expect(toolCalls(one.msgs)[0].payload.tool_call_id).toBe('call_0');
  const two = await collect(m.streamGenerate({ newMessages: [b.toolCallOutput({ output: 'Mon', tool_call_id: 'call_0' })] }));
  expect(toolCalls(two.msgs)[0].payload.tool_call_id).toBe('call_0#2');
  // a model rebuilt by compaction shares the allocator
  const after = model({ toolCallIds: ids });
  const three = await collect(after.streamGenerate({ newMessages: [b.userText('again')] }));
  expect(toolCalls(three.msgs)[0].payload.tool_call_id).toBe('call_0#3');

  await collect(m.streamGenerate({ newMessages: [b.toolCallOutput({ output: 'Tue', tool_call_id: 'call_0#2' })] }));
  const wire = sent(3);
  expect(wire.filter((x) => x.role === 'tool').map((x) => x.tool_call_id)).toEqual(['call_0', 'call_0']);
  expect(JSON.stringify(wire)).not.toContain('#2');
});

test('providers without ids, or reusing the function name as id, still get unique ids', async () => {
  server.enqueue(turn({ toolCalls: [{ name: 'read_file', arguments: '{"file_path":"/a"}' }, { name: 'read_file', arguments: '{"file_path":"/b"}' }] }));
  server.enqueue(turn({ toolCalls: [{ id: 'read_file', name: 'read_file', arguments: '{}' }] }));
  const m = model();
  const one = await collect(m.streamGenerate({ newMessages: [b.userText('go')] }));
  const two = await collect(m.streamGenerate({ newMessages: [b.toolCallOutput({ output: 'a', tool_call_id: toolCalls(one.msgs)[0].payload.tool_call_id }), b.toolCallOutput({ output: 'b', tool_call_id: toolCalls(one.msgs)[1].payload.tool_call_id })] }));
  const ids = [...toolCalls(one.msgs), ...toolCalls(two.msgs)].map((x) => x.payload.tool_call_id);
  expect(ids).toEqual(['read_file', 'read_file#2', 'read_file#3']);
});

test('images are sent as image_url parts to vision models only', async () => {
  const input = () => [b.userText('what is this?'), b.imageUrl(PNG)];
  server.enqueue(turn({ text: 'a cat' }), turn({ text: 'no idea' }));
  await collect(model({ vision: true }).streamGenerate({ newMessages: input() }));
  await collect(model({ vision: false }).streamGenerate({ newMessages: input() }));
  expect(sent(0)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: PNG } }] }]);
  expect(sent(1)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'text', text: IMAGE_OMITTED }] }]);
});

test('tool-result images follow the tool messages as one user message (vision) or become a text line (text-only)', async () => {
  const history = [
    b.userText('look'),
    b.toolCall({ name: 'read_image', arguments: '{"source":"/x.png"}', tool_call_id: 'img_1', stop_reason: 'completed' }),
  ];
  const output = () => [b.toolCallOutput({ output: 'Image loaded.', images: [PNG], tool_call_id: 'img_1' }), b.userText('and?')];
  for (const vision of [true, false]) {
    server.enqueue(turn({ text: 'ok' }));
    const m = model({ vision });
    m.setHistory(history);
    await collect(m.streamGenerate({ newMessages: output() }));
  }
  expect(sent(0).slice(2)).toEqual([
    { role: 'tool', tool_call_id: 'img_1', content: 'Image loaded.' },
    { role: 'user', content: [{ type: 'text', text: '[images from tool call img_1]' }, { type: 'image_url', image_url: { url: PNG } }, { type: 'text', text: 'and?' }] },
  ]);
  expect(sent(1).slice(2)).toEqual([
    { role: 'tool', tool_call_id: 'img_1', content: `Image loaded.\n${IMAGE_OMITTED}` },
    { role: 'user', content: 'and?' },
  ]);
});

test('a user text sender is never sent', async () => {
  server.enqueue(turn({ text: 'ok' }));
  await collect(model().streamGenerate({ newMessages: [b.userText('[background_task_done]\nkind: command\n[/background_task_done]', 'harness')] }));
  expect(sent(0)).toEqual([{ role: 'user', content: '[background_task_done]\nkind: command\n[/background_task_done]' }]);
});

test('setHistory groups adjacent same-role messages, seeds the allocator, and the next request carries it all', async () => {
  const m = model({ systemPrompt: 'sys' });
  m.setHistory([
    b.userText('first'),
    b.userText('second'),
    b.thinking('hmm', { fidelity: { reasoning_field: 'reasoning' }, stop_reason: 'completed' }),
    b.assistantText('Calling.', { stop_reason: 'completed' }),
    b.toolCall({ name: 'exec_command', arguments: '{"cmd":"ls"}', tool_call_id: 'call_9#2', stop_reason: 'completed' }),
    b.requestEnd('completed'),
    b.toolCallOutput({ output: 'a.txt', tool_call_id: 'call_9#2' }),
    b.assistantText('Found a.txt', { stop_reason: 'completed' }),
    b.thinking('legacy', { stop_reason: 'completed' }),
  ]);
  server.enqueue(turn({ toolCalls: [{ id: 'call_9', name: 'exec_command', arguments: '{}' }] }));
  const { msgs } = await collect(m.streamGenerate({ newMessages: [b.userText('now')] }));
  expect(sent(0)).toEqual([
    { role: 'system', content: 'sys' },
    { role: 'user', content: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] },
    { role: 'assistant', content: 'Calling.', reasoning: 'hmm', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } }] },
    { role: 'tool', tool_call_id: 'call_9', content: 'a.txt' },
    // thinking without a recorded field is replayed through both
    { role: 'assistant', content: 'Found a.txt', reasoning_content: 'legacy', reasoning: 'legacy' },
    { role: 'user', content: 'now' },
  ]);
  // call_9 is free, call_9#2 was seeded: the provider's call_9 keeps its id
  expect(toolCalls(msgs)[0].payload.tool_call_id).toBe('call_9');
});

test('tool calls that did not complete are not replayed', async () => {
  const m = model();
  m.setHistory([
    b.userText('go'),
    b.assistantText('Trying.', { stop_reason: 'completed' }),
    b.toolCall({ name: 'x', arguments: '{"a":', tool_call_id: 'cut_1', stop_reason: 'failed' }),
  ]);
  server.enqueue(turn({ text: 'ok' }));
  await collect(m.streamGenerate({ newMessages: [b.userText('continue')] }));
  expect(sent(0)[1]).toEqual({ role: 'assistant', content: 'Trying.' });
});

test('a turn the consumer abandons (even at token_usage) is not committed', async () => {
  server.enqueue(turn({ text: 'unseen' }), turn({ text: 'ok' }));
  const m = model();
  const gen = m.streamGenerate({ newMessages: [b.userText('q1')] });
  for (let r = await gen.next(); !r.done && !isPayload(r.value, 'token_usage'); r = await gen.next());
  await gen.return({ status: 'aborted' });
  await collect(m.streamGenerate({ newMessages: [b.userText('q1 again')] }));
  expect(sent(1)).toEqual([{ role: 'user', content: 'q1 again' }]);
  expect(m.sessionUsage.total).toBe(15);
});
