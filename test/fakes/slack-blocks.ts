/**
 * Block Kit as the fake Slack checks and shows it: parses `blocks` (a JSON array, JSON-encoded inside
 * form bodies), validates the documented limits (≤50 blocks, section text ≤3,000, markdown ≤12,000
 * cumulative, actions ≤25 elements, button label ≤75, action_id/block_id ≤255, value ≤2,000) with
 * Slack's error codes and json-pointer messages, renders blocks as the plain text a user reads, and
 * finds buttons for `clickButton`. Lengths count Unicode code points.
 */
import { slackErrors } from './slack-errors';
import { optJson } from './slack-http';
import type { Block } from './slack-types';

export interface BlockLimits {
  maxBlocks: number;
  sectionText: number;
  sectionFields: number;
  sectionFieldText: number;
  /** Sum of all `markdown` block texts in one payload. */
  markdownTotal: number;
  /** Observed (bolt-js#2509): total text of all blocks above which Slack answers msg_blocks_too_long; 0 = off. */
  blocksTotalChars: number;
  actionsElements: number;
  contextElements: number;
  buttonText: number;
  actionId: number;
  buttonValue: number;
  blockId: number;
  headerText: number;
}

export const DEFAULT_BLOCK_LIMITS: BlockLimits = {
  maxBlocks: 50,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  markdownTotal: 12_000,
  blocksTotalChars: 13_200,
  actionsElements: 25,
  contextElements: 10,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
  blockId: 255,
  headerText: 150,
};

const KNOWN_BLOCKS = new Set([
  'section', 'markdown', 'actions', 'context', 'divider', 'header', 'image', 'rich_text', 'input', 'file', 'video', 'table',
  'context_actions', 'plan', 'task_card',
]);

export const cpLength = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** `blocks` from call arguments, or undefined when absent. Malformed JSON → invalid_blocks_format. */
export function parseBlocks(params: Record<string, unknown>, key = 'blocks'): Block[] | undefined {
  const v = optJson(params, key, () => slackErrors.invalidBlocksFormat());
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((b) => typeof b !== 'object' || b === null || typeof (b as Block).type !== 'string')) {
    throw slackErrors.invalidBlocksFormat();
  }
  return structuredClone(v as Block[]);
}

interface Ctx {
  errors: string[];
  limits: BlockLimits;
  markdown: number;
  total: number;
  blockIds: Set<string>;
}

function textObject(ctx: Ctx, t: unknown, ptr: string, max: number, kinds = ['plain_text', 'mrkdwn']): void {
  if (typeof t !== 'object' || t === null) {
    ctx.errors.push(`must provide an object [json-pointer:${ptr}]`);
    return;
  }
  const o = t as { type?: unknown; text?: unknown };
  if (typeof o.type !== 'string' || !kinds.includes(o.type)) ctx.errors.push(`must be one of ${kinds.join(', ')} [json-pointer:${ptr}/type]`);
  if (typeof o.text !== 'string') {
    ctx.errors.push(`must provide a string [json-pointer:${ptr}/text]`);
    return;
  }
  const n = cpLength(o.text);
  ctx.total += n;
  if (n === 0) ctx.errors.push(`must be more than 0 characters [json-pointer:${ptr}/text]`);
  if (n > max) ctx.errors.push(`must be less than ${max + 1} characters [json-pointer:${ptr}/text]`);
}

function maxLen(ctx: Ctx, v: unknown, ptr: string, max: number): void {
  if (v === undefined) return;
  if (typeof v !== 'string') ctx.errors.push(`must provide a string [json-pointer:${ptr}]`);
  else if (cpLength(v) > max) ctx.errors.push(`must be less than ${max + 1} characters [json-pointer:${ptr}]`);
}

function element(ctx: Ctx, el: unknown, ptr: string): void {
  if (typeof el !== 'object' || el === null) {
    ctx.errors.push(`must provide an object [json-pointer:${ptr}]`);
    return;
  }
  const e = el as Record<string, unknown>;
  maxLen(ctx, e.action_id, `${ptr}/action_id`, ctx.limits.actionId);
  if (e.type === 'button') {
    textObject(ctx, e.text, `${ptr}/text`, ctx.limits.buttonText, ['plain_text']);
    maxLen(ctx, e.value, `${ptr}/value`, ctx.limits.buttonValue);
    maxLen(ctx, e.url, `${ptr}/url`, 3000);
    if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger') ctx.errors.push(`must be one of primary, danger [json-pointer:${ptr}/style]`);
  }
}

function block(ctx: Ctx, b: Block, i: number): void {
  const ptr = `/blocks/${i}`;
  if (b.block_id !== undefined) {
    maxLen(ctx, b.block_id, `${ptr}/block_id`, ctx.limits.blockId);
    if (typeof b.block_id === 'string') {
      if (ctx.blockIds.has(b.block_id)) ctx.errors.push(`duplicate block_id [json-pointer:${ptr}/block_id]`);
      ctx.blockIds.add(b.block_id);
    }
  }
  if (!KNOWN_BLOCKS.has(b.type)) {
    ctx.errors.push(`unsupported type: ${b.type} [json-pointer:${ptr}/type]`);
    return;
  }
  switch (b.type) {
    case 'section': {
      if (b.text === undefined && b.fields === undefined) ctx.errors.push(`must provide text or fields [json-pointer:${ptr}]`);
      if (b.text !== undefined) textObject(ctx, b.text, `${ptr}/text`, ctx.limits.sectionText);
      if (Array.isArray(b.fields)) {
        if (b.fields.length > ctx.limits.sectionFields) ctx.errors.push(`must provide no more than ${ctx.limits.sectionFields} items [json-pointer:${ptr}/fields]`);
        b.fields.forEach((f, j) => textObject(ctx, f, `${ptr}/fields/${j}`, ctx.limits.sectionFieldText));
      }
      if (b.accessory !== undefined) element(ctx, b.accessory, `${ptr}/accessory`);
      break;
    }
    case 'markdown': {
      if (typeof b.text !== 'string' || b.text === '') ctx.errors.push(`must provide a non-empty string [json-pointer:${ptr}/text]`);
      else {
        const n = cpLength(b.text);
        ctx.markdown += n;
        ctx.total += n;
      }
      break;
    }
    case 'header':
      textObject(ctx, b.text, `${ptr}/text`, ctx.limits.headerText, ['plain_text']);
      break;
    case 'actions': {
      const els = Array.isArray(b.elements) ? b.elements : [];
      if (els.length === 0) ctx.errors.push(`must provide at least 1 item [json-pointer:${ptr}/elements]`);
      if (els.length > ctx.limits.actionsElements) ctx.errors.push(`must provide no more than ${ctx.limits.actionsElements} items [json-pointer:${ptr}/elements]`);
      els.forEach((el, j) => element(ctx, el, `${ptr}/elements/${j}`));
      break;
    }
    case 'context': {
      const els = Array.isArray(b.elements) ? b.elements : [];
      if (els.length === 0) ctx.errors.push(`must provide at least 1 item [json-pointer:${ptr}/elements]`);
      if (els.length > ctx.limits.contextElements) ctx.errors.push(`must provide no more than ${ctx.limits.contextElements} items [json-pointer:${ptr}/elements]`);
      els.forEach((el, j) => {
        if ((el as { type?: string })?.type !== 'image') textObject(ctx, el, `${ptr}/elements/${j}`, 3000);
      });
      break;
    }
    default:
      break;
  }
}

/** Throws Slack's error for blocks that the real service refuses. */
export function validateBlocks(blocks: Block[], limits: BlockLimits = DEFAULT_BLOCK_LIMITS): void {
  const ctx: Ctx = { errors: [], limits, markdown: 0, total: 0, blockIds: new Set() };
  if (blocks.length > limits.maxBlocks) ctx.errors.push(`must provide no more than ${limits.maxBlocks} items [json-pointer:/blocks]`);
  blocks.forEach((b, i) => block(ctx, b, i));
  if (ctx.errors.length) throw slackErrors.invalidBlocks(ctx.errors);
  if (ctx.markdown > limits.markdownTotal) throw slackErrors.msgBlocksTooLong();
  if (limits.blocksTotalChars > 0 && ctx.total > limits.blocksTotalChars) throw slackErrors.msgBlocksTooLong();
}

function textOf(t: unknown): string {
  return typeof t === 'object' && t !== null && typeof (t as { text?: unknown }).text === 'string' ? (t as { text: string }).text : '';
}

function richText(node: unknown): string {
  if (typeof node !== 'object' || node === null) return '';
  const n = node as { type?: string; text?: string; elements?: unknown[]; user_id?: string; url?: string; name?: string; channel_id?: string };
  if (n.type === 'text' || n.type === 'link') return n.text ?? n.url ?? '';
  if (n.type === 'user') return `<@${n.user_id}>`;
  if (n.type === 'channel') return `<#${n.channel_id}>`;
  if (n.type === 'emoji') return `:${n.name}:`;
  const inner = (n.elements ?? []).map(richText);
  return n.type === 'rich_text' || n.type === 'rich_text_list' ? inner.join('\n') : inner.join('');
}

/** The text a user reads in these blocks, one line per block; buttons show as `[Label]`. */
export function blocksText(blocks: Block[]): string {
  const lines: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'section': {
        const parts = [textOf(b.text), ...(Array.isArray(b.fields) ? b.fields.map(textOf) : [])].filter(Boolean);
        const acc = b.accessory as { type?: string; text?: unknown } | undefined;
        if (acc?.type === 'button') parts.push(`[${textOf(acc.text)}]`);
        lines.push(parts.join('\n'));
        break;
      }
      case 'markdown':
        lines.push(typeof b.text === 'string' ? b.text : '');
        break;
      case 'header':
        lines.push(textOf(b.text));
        break;
      case 'context':
        lines.push((Array.isArray(b.elements) ? b.elements : []).map(textOf).filter(Boolean).join(' '));
        break;
      case 'actions':
        lines.push((Array.isArray(b.elements) ? b.elements : []).map((e) => `[${textOf((e as { text?: unknown }).text)}]`).join(' '));
        break;
      case 'rich_text':
        lines.push(richText(b));
        break;
      default:
        break;
    }
  }
  return lines.filter((l) => l !== '').join('\n');
}

export interface ButtonRef {
  block_id: string;
  action_id: string;
  value?: string;
  text: string;
  style?: string;
  /** The element as posted (with `confirm`, `url`, …). */
  element: Record<string, unknown>;
}

/** Every button on the message, in order, with block ids filled in as Slack does for blocks without one. */
export function buttonsOf(blocks: Block[] | undefined): ButtonRef[] {
  const out: ButtonRef[] = [];
  (blocks ?? []).forEach((b, i) => {
    const blockId = typeof b.block_id === 'string' ? b.block_id : `b${i}`;
    const els = b.type === 'actions' && Array.isArray(b.elements) ? b.elements : b.type === 'section' && b.accessory ? [b.accessory] : [];
    for (const raw of els) {
      const e = raw as Record<string, unknown>;
      if (e.type !== 'button') continue;
      out.push({
        block_id: blockId,
        action_id: typeof e.action_id === 'string' ? e.action_id : `a${out.length}`,
        value: typeof e.value === 'string' ? e.value : undefined,
        text: textOf(e.text),
        style: typeof e.style === 'string' ? e.style : undefined,
        element: e,
      });
    }
  });
  return out;
}
