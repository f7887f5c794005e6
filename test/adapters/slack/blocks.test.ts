/**
 * What the Slack adapter sends, as data: replies as a markdown block (mentions defused) plus buttons, the
 * plain form after refused blocks, approval cards as Block Kit (tool, schedule and description, the preview as a code
 * block or a diff, context, the three buttons only while pending), and the text helpers for inbound text.
 */
import { buildApprovalCard } from '../../../src/adapters/contract/approval-card';
import { cardBlocks } from '../../../src/adapters/slack/card-blocks';
import { defuseMentions, fallbackText, FALLBACK_TEXT_MAX, measureSlack, slackMessageBody } from '../../../src/adapters/slack/format';
import { toSlackMrkdwn } from '../../../src/adapters/format/slack';
import { stripBotMention, textCommand, unescapeSlackText } from '../../../src/adapters/slack/text';
import { blocksText, validateBlocks } from '../../fakes/slack-blocks';

const stop = [{ label: 'Stop', payload: 's:t1', style: 'danger' as const }];

describe('replies', () => {
  it('sends Markdown in a markdown block, buttons as actions, and a plain fallback text', () => {
    const body = slackMessageBody({ text: '# Title\n**bold** <!channel> and <@U123>', plain: false, buttons: stop });
    expect(body.blocks).toEqual([
      { type: 'markdown', text: '# Title\n**bold** <\u200b!channel> and <\u200b@U123>' },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Stop', emoji: true }, action_id: 's:t1', value: 's:t1', style: 'danger' }] },
    ]);
    expect(body.text).toBe(toSlackMrkdwn('# Title\n**bold** <!channel> and <@U123>'));
    expect(body.text).toContain('*bold* &lt;!channel&gt;');
    validateBlocks(body.blocks as never);
    expect(slackMessageBody({ text: '', plain: false }).blocks).toEqual([{ type: 'markdown', text: '…' }]);
    expect(slackMessageBody({ text: 'a < b & c', plain: true, buttons: stop })).toEqual({ text: 'a &lt; b &amp; c', blocks: [] });
    expect([...fallbackText('x'.repeat(5000))]).toHaveLength(FALLBACK_TEXT_MAX);
    expect(measureSlack('日本語 <@U1>')).toBe(10);
    expect(defuseMentions('a <https://x> b')).toBe('a <https://x> b');
  });
});

describe('approval cards', () => {
  const exec = buildApprovalCard({ approvalId: 'ap1', toolName: 'exec_command', arguments: JSON.stringify({ cmd: 'rm -rf build && make', description: 'Rebuild from scratch' }) });

  it('lays a pending command card out as sections, context and the three buttons', () => {
    const blocks = cardBlocks(exec, { state: 'pending' });
    validateBlocks(blocks as never);
    expect(blocks.map((b) => b.type)).toEqual(['section', 'section', 'context', 'actions']);
    const text = blocksText(blocks as never);
    expect(text).toContain('✋ *Approval needed*: `exec_command`');
    expect(text).toContain('Rebuild from scratch');
    expect(text).toContain('```\nrm -rf build &amp;&amp; make\n```');
    expect(text).toContain('[Allow] [Deny] [Allow for this session]');
  });

  it('shows the decision without buttons, and a file edit as a path and a diff', () => {
    const decided = cardBlocks(exec, { state: 'decided', verb: 'session', by: 'alice' });
    expect(decided.some((b) => b.type === 'actions')).toBe(false);
    expect(blocksText(decided as never)).toMatch(/^✅ \*Allowed for this session\* by alice: `exec_command`/);
    expect(blocksText(cardBlocks(exec, { state: 'expired', reason: 'gateway restarted' }) as never)).toMatch(/^⌛ \*Expired\* \(gateway restarted\)/);
    const edit = buildApprovalCard({ approvalId: 'ap2', toolName: 'edit_file', arguments: JSON.stringify({ file_path: 'src/a.ts', old_string: 'one', new_string: 'two' }), origin: ['child-1'] });
    const text = blocksText(cardBlocks(edit, { state: 'pending' }) as never);
    expect(text).toContain('`src/a.ts`');
    expect(text).toMatch(/-one\n\+two/);
    expect(text).toContain('asked by subagent `child-1`');
  });

  it('names the schedule of a scheduled run in the headline, pending and decided', () => {
    const sched = buildApprovalCard({ approvalId: 'ap3', toolName: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hi' }), schedule: 'night`ly' });
    expect(blocksText(cardBlocks(sched, { state: 'pending' }) as never)).toMatch(/^✋ \*Approval needed\*: `exec_command` · scheduled run of `night'ly`\n/);
    expect(blocksText(cardBlocks(sched, { state: 'decided', verb: 'allow', by: 'alice' }) as never)).toMatch(/^✅ \*Allowed\* by alice: `exec_command` · scheduled run of `night'ly`/);
    expect(blocksText(cardBlocks(exec, { state: 'pending' }) as never)).not.toContain('scheduled run');
  });

  it('says who may decide: the starter or an approver, only an approver for a scheduled run, nobody named in a DM run', () => {
    const args = JSON.stringify({ cmd: 'echo hi' });
    const line = (card: ReturnType<typeof buildApprovalCard>) => blocksText(cardBlocks(card, { state: 'pending' }) as never).split('\n').find((l) => /can decide/.test(l));
    expect(line(buildApprovalCard({ approvalId: 'a', toolName: 'exec_command', arguments: args }))).toBe('only the person who started this task or an approver can decide');
    expect(line(buildApprovalCard({ approvalId: 'b', toolName: 'exec_command', arguments: args, schedule: 'nightly' }))).toBe('only an approver can decide');
    expect(line(buildApprovalCard({ approvalId: 'c', toolName: 'exec_command', arguments: args, schedule: 'nightly', anyoneMayDecide: true }))).toBeUndefined();
  });
});

describe('inbound text', () => {
  it('strips the bot mention, undoes Slack markup and maps command words', () => {
    expect(stripBotMention('<@UBOT> hello <@UBOT|penguin> there', 'UBOT')).toEqual({ text: 'hello there', mentioned: true });
    expect(stripBotMention('hi <@UOTHER>', 'UBOT')).toEqual({ text: 'hi <@UOTHER>', mentioned: false });
    expect(unescapeSlackText('see <#C1|general> and <mailto:a@b.c|a@b.c> &lt;3')).toBe('see #general and a@b.c (mailto:a@b.c) <3');
    expect(['new', 'STOP', 'mode allow-all', 'mode', 'news'].map(textCommand)).toEqual(['/new', '/stop', '/mode allow-all', '/mode', 'news']);
  });
});
