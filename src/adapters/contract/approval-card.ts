/**
 * ApprovalCard: the platform-neutral approval prompt (gateway.md §5). Built from a tool call: tool name, the
 * model's `description`, an argument preview cut to fit (the command for exec_command/input_command, path +
 * unified diff for edit_file/write_file, compact JSON otherwise), a subagent or schedule marker, and the
 * three buttons Allow / Deny / Allow for this session. `approvalCardMarkdown` renders it (pending or decided) as Markdown
 * for the platform formatters; adapters turn `buttons` into Block Kit / components / inline keyboards.
 */
import { encodeActionPayload, type ApprovalVerb } from './action-payload';
import { unifiedDiff } from './diff-preview';

export type ArgumentPreview =
  | { kind: 'command'; text: string; target?: string; truncated: boolean }
  | { kind: 'diff'; path: string; text: string; truncated: boolean }
  | { kind: 'args'; text: string; truncated: boolean }
  | { kind: 'none' };

export interface CardButton {
  label: string;
  payload: string;
  style: 'primary' | 'danger' | 'secondary';
}

export interface ApprovalCard {
  approvalId: string;
  tool: string;
  description?: string;
  /** Child session id when a subagent asks (from the tool call's `origin`). */
  subagent?: string;
  /** The schedule whose unattended run asks. */
  schedule?: string;
  /** Anyone in the conversation may decide (a scheduled run in a direct message); else its starter or an approver. */
  anyoneMayDecide?: boolean;
  preview: ArgumentPreview;
  buttons: CardButton[];
}

export type CardState =
  | { state: 'pending' }
  | { state: 'decided'; verb: ApprovalVerb; by: string }
  | { state: 'expired'; reason?: string };

export interface ApprovalCardInput {
  approvalId: string;
  toolName: string;
  /** The tool call's JSON arguments string, exactly as the model produced it. */
  arguments: string;
  /** The tool call message's `origin` (subagent chain, outer → inner). */
  origin?: string[];
  /** Longest preview text in characters (default 1,200: fits Discord's 2,000 with room for the rest). */
  maxPreviewChars?: number;
  /** The schedule whose unattended run asks (shown on the card). */
  schedule?: string;
  /** Anyone in the conversation may decide. */
  anyoneMayDecide?: boolean;
}

export const BUTTON_LABELS: Record<ApprovalVerb, string> = { allow: 'Allow', deny: 'Deny', session: 'Allow for this session' };
const BUTTON_STYLE: Record<ApprovalVerb, CardButton['style']> = { allow: 'primary', deny: 'danger', session: 'secondary' };

/** Keep whole lines while they fit; a single over-long line is cut. Reports whether anything was dropped. */
export function cutToFit(text: string, maxChars: number): { text: string; truncated: boolean } {
  if ([...text].length <= maxChars) return { text, truncated: false };
  const lines = text.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const len = [...line].length + 1;
    if (used + len > maxChars) break;
    kept.push(line);
    used += len;
  }
  if (kept.length === 0) return { text: `${[...lines[0]].slice(0, Math.max(1, maxChars - 1)).join('')}…`, truncated: true };
  const dropped = lines.length - kept.length;
  return { text: `${kept.join('\n')}\n… ${dropped} more line${dropped === 1 ? '' : 's'}`, truncated: true };
}

function parseArgs(json: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Control characters made visible (`\u0003` → ^C) so a keystroke preview cannot hide anything. */
function visibleChars(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => (c === '\u007f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`));
}

function previewFor(tool: string, args: Record<string, unknown> | undefined, raw: string, max: number): ArgumentPreview {
  if (!args) return raw.trim() ? { kind: 'args', ...cutToFit(raw, max) } : { kind: 'none' };
  if (tool === 'exec_command' && str(args.cmd) !== undefined) {
    return { kind: 'command', ...cutToFit(str(args.cmd)!, max), ...(str(args.workdir) ? { target: `in ${str(args.workdir)}` } : {}) };
  }
  if (tool === 'input_command' && str(args.process_id) !== undefined) {
    const chars = str(args.chars) ?? '';
    return { kind: 'command', ...cutToFit(chars === '' ? '(poll for output)' : visibleChars(chars), max), target: `to ${str(args.process_id)}` };
  }
  if ((tool === 'edit_file' || tool === 'write_file') && str(args.file_path) !== undefined) {
    const diff = tool === 'edit_file' ? unifiedDiff(str(args.old_string) ?? '', str(args.new_string) ?? '') : unifiedDiff('', str(args.content) ?? '');
    const suffix = tool === 'edit_file' && args.replace_all === true ? '\n(replace all occurrences)' : '';
    return { kind: 'diff', path: str(args.file_path)!, ...cutToFit(diff + suffix, max) };
  }
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'description'));
  if (Object.keys(rest).length === 0) return { kind: 'none' };
  return { kind: 'args', ...cutToFit(JSON.stringify(rest, null, 1).replace(/\n\s*/g, ' '), max) };
}

export function buildApprovalCard(input: ApprovalCardInput): ApprovalCard {
  const max = input.maxPreviewChars ?? 1_200;
  const args = parseArgs(input.arguments);
  const description = str(args?.description)?.trim();
  const verbs: ApprovalVerb[] = ['allow', 'deny', 'session'];
  return {
    approvalId: input.approvalId,
    tool: input.toolName,
    ...(description ? { description: cutToFit(description.replace(/\s+/g, ' '), 300).text } : {}),
    ...(input.origin?.length ? { subagent: input.origin[input.origin.length - 1] } : {}),
    ...(input.schedule ? { schedule: input.schedule } : {}),
    ...(input.anyoneMayDecide ? { anyoneMayDecide: true } : {}),
    preview: previewFor(input.toolName, args, input.arguments, max),
    buttons: verbs.map((verb) => ({ label: BUTTON_LABELS[verb], payload: encodeActionPayload({ kind: 'approval', approvalId: input.approvalId, verb }), style: BUTTON_STYLE[verb] })),
  };
}

/** A fence longer than any backtick run in `body`, so the body can never close it. */
export function fenceFor(body: string): string {
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function codeBlock(body: string, lang = ''): string {
  const fence = fenceFor(body);
  return `${fence}${lang}\n${body}\n${fence}`;
}

/** Markdown escaping for short inline strings taken from model output (descriptions, names). */
export function escapeInlineMarkdown(s: string): string {
  return s.replace(/[\\`*_~[\]<>|#]/g, (c) => `\\${c}`);
}

function headline(card: ApprovalCard, state: CardState): string {
  const who = `${card.subagent ? ` · subagent \`${card.subagent}\`` : ''}${card.schedule ? ` · scheduled run of \`${card.schedule.replace(/`/g, "'")}\`` : ''}`;
  const tool = `\`${card.tool}\``;
  switch (state.state) {
    case 'pending': return `✋ **Approval needed**: ${tool}${who}`;
    case 'decided':
      if (state.verb === 'deny') return `⛔ **Denied** by ${escapeInlineMarkdown(state.by)}: ${tool}${who}`;
      return `✅ **${state.verb === 'session' ? `Allowed for this session` : 'Allowed'}** by ${escapeInlineMarkdown(state.by)}: ${tool}${who}`;
    case 'expired': return `⌛ **Expired**${state.reason ? ` (${escapeInlineMarkdown(state.reason)})` : ''}: ${tool}${who}`;
  }
}

/** The card as Markdown; buttons are separate (`buttonsFor`). */
export function approvalCardMarkdown(card: ApprovalCard, state: CardState = { state: 'pending' }): string {
  const parts = [headline(card, state)];
  if (card.description) parts.push(escapeInlineMarkdown(card.description));
  const p = card.preview;
  switch (p.kind) {
    case 'command':
      if (p.target) parts.push(escapeInlineMarkdown(p.target));
      parts.push(codeBlock(p.text, 'sh'));
      break;
    case 'diff':
      parts.push(`\`${p.path.replace(/`/g, "'")}\``);
      parts.push(codeBlock(p.text, 'diff'));
      break;
    case 'args':
      parts.push(codeBlock(p.text, 'json'));
      break;
    case 'none':
      break;
  }
  return parts.join('\n');
}

/** Buttons to show: all three while pending, none once decided or expired. */
export function buttonsFor(card: ApprovalCard, state: CardState = { state: 'pending' }): CardButton[] {
  return state.state === 'pending' ? card.buttons : [];
}
