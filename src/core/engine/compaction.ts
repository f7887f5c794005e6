/**
 * Compaction rules that need no engine state (engine.md §2.9, §11): the effective context threshold,
 * which trigger fires, how a summary is extracted from the model's reply and when it is usable, the
 * `[context_summary]` input a new context starts with, and the compactability answer.
 */
import * as b from '../omnimessage/builders';
import { findBlocks, formatBlock } from '../omnimessage/markers';
import type { CompactionMode, CompactionReason, OmniMessage } from '../omnimessage/types';

export interface CompactionConfig {
  /** Configured context threshold in tokens; ≤0 disables the `context` trigger. Default 256000. */
  max_context_length?: number;
  /** Completed turns per context before the `turns` trigger; ≤0 disables it. Default -1. */
  max_session_turns?: number;
  mode?: CompactionMode;
  /** The user text the summarize request ends with. */
  prompt: string;
}

export interface CompactionSettings {
  /** Effective threshold (already capped by the window); 0 = disabled. */
  maxContextLength: number;
  maxSessionTurns: number;
  mode: CompactionMode;
  prompt: string;
}

export const DEFAULT_MAX_CONTEXT_LENGTH = 256000;
export const ASSUMED_WINDOW = 128000;
export const WINDOW_MARGIN = 2048;
export const MIN_USABLE_WINDOW = 4096;

/** A model window as a usable number: numeric strings accepted; missing/invalid ⇒ 128000; below 4096 ⇒ 4096. */
export function usableWindow(window: number | string | undefined): number {
  const n = typeof window === 'string' && /^\s*\d+\s*$/.test(window) ? Number(window) : window;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return ASSUMED_WINDOW;
  return Math.max(Math.floor(n), MIN_USABLE_WINDOW);
}

export function resolveCompaction(cfg: CompactionConfig, window: number | string | undefined): CompactionSettings {
  const configured = cfg.max_context_length ?? DEFAULT_MAX_CONTEXT_LENGTH;
  return {
    maxContextLength: configured > 0 ? Math.min(configured, usableWindow(window) - WINDOW_MARGIN) : 0,
    maxSessionTurns: cfg.max_session_turns ?? -1,
    mode: cfg.mode ?? 'summarize',
    prompt: cfg.prompt,
  };
}

/** `context` when the last request reached the threshold, else `turns` when the context has enough turns, else nothing. */
export function compactionTrigger(s: CompactionSettings, lastRequestTotal: number, turnsInContext: number): CompactionReason | undefined {
  if (s.maxContextLength > 0 && lastRequestTotal >= s.maxContextLength) return 'context';
  if (s.maxSessionTurns > 0 && turnsInContext >= s.maxSessionTurns) return 'turns';
  return undefined;
}

const TAG_TOKENS = /\[\/?summary\]|<\/?summary>/g;

/**
 * The summary in a reply: the first non-empty `[summary]` pair; else the reply with the summary tags
 * removed (an unclosed or empty pair around prose). '' when nothing but tags and whitespace remains.
 */
export function extractSummary(reply: string): string {
  for (const blk of findBlocks(reply, 'summary')) {
    const body = blk.body.trim();
    if (body !== '') return body;
  }
  return reply.replace(TAG_TOKENS, '').trim();
}

export function contextSummaryMessage(summary: string): OmniMessage {
  return b.userText(formatBlock('context_summary', summary));
}

/** Sent after a reply that was not a usable summary, before the prompt is repeated. */
export const SUMMARY_CORRECTION =
  'That reply cannot be used as a summary. Answer with text only and call no tools: put the whole summary inside [summary] and [/summary].';

/** The synthetic output answering a tool call made during a summarize request. */
export const SUMMARY_TOOL_REFUSAL = '[tool error] tools are unavailable while the context is being summarized';

export type Compactability = 'ok' | 'unsupported' | 'empty' | 'just_compacted';

export function compactabilityOf(configured: boolean, turnsInContext: number, fromCompaction: boolean): Compactability {
  if (!configured) return 'unsupported';
  if (turnsInContext > 0) return 'ok';
  return fromCompaction ? 'just_compacted' : 'empty';
}
