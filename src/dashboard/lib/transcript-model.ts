/**
 * Turns a session's OmniMessage history into what the transcript viewer shows: user and assistant texts,
 * thinking, each tool call joined with its output, its approval decision and who decided it (from the
 * approvals rows), subagent sessions under the `run_subagent` call that started them, and banners for
 * compaction, retries, failures and aborts. Partial (streaming) payloads are left out: the complete
 * message follows each of them.
 */
import type { Approval, OmniMessage } from './types';

export type Item =
  | { kind: 'meta'; model: string; at: string; source?: string }
  | { kind: 'text'; role: 'user' | 'assistant'; text: string; sender?: string; at: string }
  | { kind: 'thinking'; text: string; at: string }
  | { kind: 'tool'; id: string; name: string; args: string; output?: string; decision?: string; decidedBy?: string | null; subagents: string[]; at: string }
  | { kind: 'banner'; tone: 'info' | 'warn' | 'error'; text: string; at: string };

function prettyArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

export function transcriptItems(messages: readonly OmniMessage[], approvals: readonly Approval[]): Item[] {
  const items: Item[] = [];
  const tools = new Map<string, Extract<Item, { kind: 'tool' }>>();
  let lastSubagentCall: Extract<Item, { kind: 'tool' }> | undefined;
  for (const m of messages) {
    const p = m.payload;
    const at = m.timestamp;
    if (m.type === 'session_meta') {
      items.push({ kind: 'meta', model: `${p.provider}/${p.model_id}`, at, ...(p.source ? { source: p.source } : {}) });
      continue;
    }
    switch (p.type) {
      case 'text':
        items.push({ kind: 'text', role: p.role, text: p.text, ...(p.sender && p.sender !== 'user' ? { sender: p.sender } : {}), at });
        break;
      case 'thinking':
        if (p.thinking) items.push({ kind: 'thinking', text: p.thinking, at });
        break;
      case 'tool_call': {
        const t: Extract<Item, { kind: 'tool' }> = { kind: 'tool', id: p.tool_call_id, name: p.name, args: prettyArgs(p.arguments), subagents: [], at };
        tools.set(p.tool_call_id, t);
        items.push(t);
        if (p.name === 'run_subagent') lastSubagentCall = t;
        break;
      }
      case 'tool_call_output': {
        const t = tools.get(p.tool_call_id);
        if (t) t.output = p.output;
        else items.push({ kind: 'banner', tone: 'info', text: `output of an earlier tool call: ${p.output}`, at });
        break;
      }
      case 'approval_decision': {
        const t = tools.get(p.tool_call_id);
        const row = approvals.find((a) => a.tool_call_id === p.tool_call_id);
        if (t) {
          t.decision = p.decision;
          t.decidedBy = row?.decided_by ?? (p.decision === 'forbidden' ? `command policy${p.policy_rule ? ` (${p.policy_rule})` : ''}` : 'the approval mode');
        }
        break;
      }
      case 'subagent':
        (lastSubagentCall ?? { subagents: [] as string[] }).subagents.push(p.session_id);
        break;
      case 'compaction_begin':
        items.push({ kind: 'banner', tone: 'info', text: `🗜️ Compacting the context (${p.reason}, ${p.mode})`, at });
        break;
      case 'compaction_end':
        items.push({ kind: 'banner', tone: p.status === 'completed' ? 'info' : 'warn', text: `🗜️ Compaction ${p.status}${p.error_message ? `: ${p.error_message}` : ''}`, at });
        break;
      case 'request_end':
        if (p.retry_in_ms !== undefined) items.push({ kind: 'banner', tone: 'warn', text: `🔁 Retrying in ${Math.round(p.retry_in_ms / 1000)} s (attempt ${(p.attempt ?? 1) + 1})${p.error_message ? `: ${p.error_message}` : ''}`, at });
        else if (p.status !== 'completed' && p.status !== 'aborted') items.push({ kind: 'banner', tone: 'error', text: `Model request ${p.status}${p.error_message ? `: ${p.error_message}` : ''}`, at });
        break;
      case 'abort':
        items.push({ kind: 'banner', tone: 'warn', text: `⛔ Aborted${p.reason ? `: ${p.reason}` : ''}`, at });
        break;
      default:
        break;
    }
  }
  return items;
}
