/**
 * The neutral approval card (contract/approval-card.ts) as Block Kit: a section with the outcome or "Approval
 * needed", the tool (and the schedule of a scheduled run) and the model's description; a section with the
 * argument preview as a code block (the path, then the diff, for file edits); a context line (subagent, a cut
 * preview, who may decide); and while pending the Allow / Deny / Allow for this session buttons. Text goes
 * through the shared mrkdwn renderer.
 */
import { buttonsFor, escapeInlineMarkdown, fenceFor, type ApprovalCard, type CardState } from '../contract/approval-card';
import { toSlackMrkdwn } from '../format/slack';
import { actionsBlock, type SlackBlock } from './blocks';

/** Section text limit, with room for the fence. */
const SECTION_MAX = 2_900;

function mrkdwn(markdown: string): { type: 'mrkdwn'; text: string } {
  const text = toSlackMrkdwn(markdown);
  const cps = [...text];
  return { type: 'mrkdwn', text: cps.length <= SECTION_MAX ? text : `${cps.slice(0, SECTION_MAX - 1).join('')}…` };
}

function headline(card: ApprovalCard, state: CardState): string {
  // A scheduled run's card names its schedule, as the neutral card does: nobody asked for the run in the chat.
  const tool = `\`${card.tool}\`${card.schedule ? ` · scheduled run of \`${card.schedule.replace(/`/g, "'")}\`` : ''}`;
  switch (state.state) {
    case 'pending':
      return `✋ **Approval needed**: ${tool}`;
    case 'decided':
      if (state.verb === 'deny') return `⛔ **Denied** by ${escapeInlineMarkdown(state.by)}: ${tool}`;
      return `✅ **${state.verb === 'session' ? 'Allowed for this session' : 'Allowed'}** by ${escapeInlineMarkdown(state.by)}: ${tool}`;
    case 'expired':
      return `⌛ **Expired**${state.reason ? ` (${escapeInlineMarkdown(state.reason)})` : ''}: ${tool}`;
  }
}

function fenced(body: string): string {
  const f = fenceFor(body);
  return `${f}\n${body}\n${f}`;
}

function previewMarkdown(card: ApprovalCard): string | undefined {
  const p = card.preview;
  switch (p.kind) {
    case 'command':
      return [p.target ? escapeInlineMarkdown(p.target) : '', fenced(p.text)].filter(Boolean).join('\n');
    case 'diff':
      return `\`${p.path.replace(/`/g, "'")}\`\n${fenced(p.text)}`;
    case 'args':
      return fenced(p.text);
    case 'none':
      return undefined;
  }
}

function contextLines(card: ApprovalCard, state: CardState): string[] {
  const lines: string[] = [];
  if (card.subagent) lines.push(`asked by subagent \`${card.subagent}\``);
  if (card.preview.kind !== 'none' && card.preview.truncated) lines.push('preview cut to fit');
  if (state.state === 'pending' && !card.anyoneMayDecide) {
    // a scheduled run has no person who started it: only approvers may decide for it
    lines.push(card.schedule ? 'only an approver can decide' : 'only the person who started this task or an approver can decide');
  }
  return lines;
}

export function cardBlocks(card: ApprovalCard, state: CardState): SlackBlock[] {
  const head = [headline(card, state), card.description ? escapeInlineMarkdown(card.description) : ''].filter(Boolean).join('\n');
  const blocks: SlackBlock[] = [{ type: 'section', text: mrkdwn(head) }];
  const preview = previewMarkdown(card);
  if (preview) blocks.push({ type: 'section', text: mrkdwn(preview) });
  const context = contextLines(card, state);
  if (context.length) blocks.push({ type: 'context', elements: context.map((l) => mrkdwn(l)) });
  const actions = actionsBlock(buttonsFor(card, state));
  if (actions) blocks.push(actions);
  return blocks;
}
