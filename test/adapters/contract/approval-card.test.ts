/**
 * Approval cards: previews per tool (command, diff, args), cutting to fit, subagent marker, decided states, buttons.
 */
import { decodeActionPayload } from '../../../src/adapters/contract/action-payload';
import { approvalCardMarkdown, buildApprovalCard, buttonsFor, cutToFit, fenceFor } from '../../../src/adapters/contract/approval-card';
import { unifiedDiff } from '../../../src/adapters/contract/diff-preview';
import { DISCORD_LIMITS, TELEGRAM_LIMITS } from '../../../src/adapters/contract/limits';
import { toDiscordMarkdown } from '../../../src/adapters/format/discord';
import { telegramLength, toTelegramHtml } from '../../../src/adapters/format/telegram';

const args = (o: Record<string, unknown>) => JSON.stringify(o);

describe('approval cards', () => {
  it('shows an exec_command as the command in a code block, with description and three buttons', () => {
    const card = buildApprovalCard({ approvalId: 'ap1', toolName: 'exec_command', arguments: args({ description: 'Run the tests', cmd: 'npm test -- --watch=false', workdir: 'pkg' }) });
    expect(card.preview).toEqual({ kind: 'command', text: 'npm test -- --watch=false', target: 'in pkg', truncated: false });
    const md = approvalCardMarkdown(card);
    expect(md).toBe('✋ **Approval needed**: `exec_command`\nRun the tests\nin pkg\n```sh\nnpm test -- --watch=false\n```');
    expect(card.buttons.map((b) => b.label)).toEqual(['Allow', 'Deny', 'Allow for this session']);
    expect(card.buttons.map((b) => decodeActionPayload(b.payload))).toEqual([
      { ok: true, action: { kind: 'approval', approvalId: 'ap1', verb: 'allow' } },
      { ok: true, action: { kind: 'approval', approvalId: 'ap1', verb: 'deny' } },
      { ok: true, action: { kind: 'approval', approvalId: 'ap1', verb: 'session' } },
    ]);
    for (const b of card.buttons) expect(Buffer.byteLength(b.payload)).toBeLessThanOrEqual(TELEGRAM_LIMITS.buttonPayloadBytes);
  });

  it('shows input_command keystrokes visibly (Ctrl-C as ^C) and the target process', () => {
    const card = buildApprovalCard({ approvalId: 'ap2', toolName: 'input_command', arguments: args({ description: 'Stop the server', process_id: 'proc-1a2b3c4d', chars: '\u0003' }) });
    expect(card.preview).toEqual({ kind: 'command', text: '^C', target: 'to proc-1a2b3c4d', truncated: false });
  });

  it('previews edit_file as path + unified diff and write_file as an all-added diff', () => {
    const edit = buildApprovalCard({
      approvalId: 'ap3',
      toolName: 'edit_file',
      arguments: args({ description: 'Fix the greeting', file_path: 'src/a.ts', old_string: 'const a = 1;\nhello();\nconst b = 2;', new_string: 'const a = 1;\ngreet();\nconst b = 2;' }),
    });
    expect(edit.preview).toEqual({ kind: 'diff', path: 'src/a.ts', text: '@@ -1,3 +1,3 @@\n const a = 1;\n-hello();\n+greet();\n const b = 2;', truncated: false });
    expect(approvalCardMarkdown(edit)).toContain('`src/a.ts`\n```diff\n@@ -1,3 +1,3 @@');
    const write = buildApprovalCard({ approvalId: 'ap4', toolName: 'write_file', arguments: args({ file_path: '/tmp/x.md', content: '# Title\nbody\n' }) });
    expect(write.preview).toEqual({ kind: 'diff', path: '/tmp/x.md', text: '@@ -0,0 +1,2 @@\n+# Title\n+body', truncated: false });
  });

  it('cuts long previews to fit, by whole lines, and says how much was left out', () => {
    const cmd = Array.from({ length: 400 }, (_, i) => `echo line-${i}`).join('\n');
    const card = buildApprovalCard({ approvalId: 'ap5', toolName: 'exec_command', arguments: args({ description: 'Many echoes', cmd }), maxPreviewChars: 300 });
    expect(card.preview.kind).toBe('command');
    if (card.preview.kind !== 'command') return;
    expect(card.preview.truncated).toBe(true);
    expect([...card.preview.text].length).toBeLessThanOrEqual(300 + 20);
    expect(card.preview.text).toMatch(/\n… \d+ more lines$/);
    // the rendered default card fits Discord's 2,000 and Telegram's 4,096 even for huge arguments
    const big = buildApprovalCard({ approvalId: 'ap6', toolName: 'write_file', arguments: args({ description: 'x'.repeat(5000), file_path: 'f', content: 'y\n'.repeat(10000) }) });
    expect(toDiscordMarkdown(approvalCardMarkdown(big)).length).toBeLessThan(DISCORD_LIMITS.maxChars);
    expect(telegramLength(toTelegramHtml(approvalCardMarkdown(big)))).toBeLessThan(TELEGRAM_LIMITS.maxChars);
    expect(cutToFit('a'.repeat(50), 10)).toEqual({ text: `${'a'.repeat(9)}…`, truncated: true });
  });

  it('names the schedule whose unattended run asks, pending and decided', () => {
    const card = buildApprovalCard({ approvalId: 'abcdefghij', toolName: 'exec_command', arguments: JSON.stringify({ cmd: 'ls' }), schedule: 'daily-report' });
    expect(card.schedule).toBe('daily-report');
    expect(approvalCardMarkdown(card)).toMatch(/^✋ \*\*Approval needed\*\*: `exec_command` · scheduled run of `daily-report`\n/);
    expect(approvalCardMarkdown(card, { state: 'decided', verb: 'allow', by: 'ann' })).toMatch(/^✅ \*\*Allowed\*\* by ann: `exec_command` · scheduled run of `daily-report`/);
    expect(buildApprovalCard({ approvalId: 'abcdefghij', toolName: 'x', arguments: '{}' }).schedule).toBeUndefined();
  });

  it('marks subagent requests and renders decisions without buttons', () => {
    const card = buildApprovalCard({ approvalId: 'ap7', toolName: 'read_file', arguments: args({ file_path: 'a.txt' }), origin: ['session-2026-01-01-00-00-00-abcd1234'] });
    expect(card.subagent).toBe('session-2026-01-01-00-00-00-abcd1234');
    expect(card.preview).toEqual({ kind: 'args', text: '{ "file_path": "a.txt" }', truncated: false });
    expect(approvalCardMarkdown(card)).toMatch(/^✋ \*\*Approval needed\*\*: `read_file` · subagent `session-/);
    expect(approvalCardMarkdown(card, { state: 'decided', verb: 'allow', by: '@ann' })).toMatch(/^✅ \*\*Allowed\*\* by @ann: `read_file`/);
    expect(approvalCardMarkdown(card, { state: 'decided', verb: 'session', by: '@ann' })).toMatch(/^✅ \*\*Allowed for this session\*\* by @ann/);
    expect(approvalCardMarkdown(card, { state: 'decided', verb: 'deny', by: 'bob_x' })).toMatch(/^⛔ \*\*Denied\*\* by bob\\_x/);
    expect(approvalCardMarkdown(card, { state: 'expired', reason: 'gateway restarted' })).toMatch(/^⌛ \*\*Expired\*\* \(gateway restarted\)/);
    expect(buttonsFor(card, { state: 'decided', verb: 'allow', by: 'x' })).toEqual([]);
    expect(buttonsFor(card)).toHaveLength(3);
  });

  it('never lets argument text close its code block', () => {
    const card = buildApprovalCard({ approvalId: 'ap8', toolName: 'exec_command', arguments: args({ cmd: 'echo ```; echo ````' }) });
    const md = approvalCardMarkdown(card);
    expect(md).toContain('`````sh\necho ```; echo ````\n`````');
    expect(fenceFor('no ticks')).toBe('```');
  });

  it('keeps unparseable arguments as a raw preview', () => {
    const card = buildApprovalCard({ approvalId: 'ap9', toolName: 'mcp__x__y', arguments: '{"broken"' });
    expect(card.preview).toEqual({ kind: 'args', text: '{"broken"', truncated: false });
    expect(card.description).toBeUndefined();
  });
});

describe('unified diff', () => {
  it('keeps two lines of context and separate hunks', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const b = a.slice();
    b[2] = 'X';
    b[15] = 'Y';
    expect(unifiedDiff(a.join('\n'), b.join('\n'))).toBe(['@@ -1,5 +1,5 @@', ' l0', ' l1', '-l2', '+X', ' l3', ' l4', '@@ -14,5 +14,5 @@', ' l13', ' l14', '-l15', '+Y', ' l16', ' l17'].join('\n'));
    expect(unifiedDiff('same', 'same')).toBe('');
  });

  it('ignores a missing final newline, keeps CR in its line, and shows a huge rewrite as all removed then all added', () => {
    expect(unifiedDiff('a\nb', 'a\nc\n')).toBe('@@ -1,2 +1,2 @@\n a\n-b\n+c');
    expect(unifiedDiff('a\r\nb\r\n', 'a\r\nB\r\n')).toBe('@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r');
    const a = Array.from({ length: 3000 }, (_, i) => `l${i}`);
    const b = a.map((l, i) => (i % 3 ? l : `${l}!`));
    expect(unifiedDiff(a.join('\n'), b.join('\n'))).toBe(['@@ -1,3000 +1,3000 @@', ...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)].join('\n'));
  });
});
