/**
 * Stream builders for render tests: produce OmniMessage sequences the way the engine streams them
 * (start → deltas → stop → complete, request framing, tool outputs after their calls), so every test
 * stream also passes the streaming-discipline check.
 */
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage, StopReason, TokenCounts } from '../../../src/core/omnimessage/types';

export function textSegment(chunks: string[], stop: StopReason = 'completed'): OmniMessage[] {
  return [b.partialText('start'), ...chunks.filter((c) => c !== '').map((c) => b.partialText('delta', c)), b.partialText('stop', '', stop), b.assistantText(chunks.join(''), { stop_reason: stop })];
}

export function thinkingSegment(chunks: string[]): OmniMessage[] {
  return [b.partialThinking('start'), ...chunks.filter((c) => c !== '').map((c) => b.partialThinking('delta', c)), b.partialThinking('stop'), b.thinking(chunks.join(''))];
}

export function toolCallSegment(id: string, name: string, args: Record<string, unknown>, argChunks = 2, stop: StopReason = 'completed'): OmniMessage[] {
  const json = JSON.stringify(args);
  const size = Math.max(1, Math.ceil(json.length / argChunks));
  const parts: string[] = [];
  for (let i = 0; i < json.length; i += size) parts.push(json.slice(i, i + size));
  return [
    b.partialToolCall('start', id, name),
    ...parts.map((p) => b.partialToolCall('delta', id, '', p)),
    b.partialToolCall('stop', id, '', '', stop),
    b.toolCall({ name, arguments: json, tool_call_id: id, stop_reason: stop }),
  ];
}

export function toolOutput(id: string, output: string, stop: StopReason = 'completed'): OmniMessage[] {
  return [b.partialToolCallOutput('start', id), b.partialToolCallOutput('delta', id, output), b.partialToolCallOutput('stop', id, '', { stop_reason: stop }), b.toolCallOutput({ output, tool_call_id: id, stop_reason: stop })];
}

export const usage = (total: number, output = Math.floor(total / 4)): TokenCounts => ({ cache_read: 0, cache_write: total - output, output, total });
