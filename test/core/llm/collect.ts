/**
 * Test helper: drains a model stream into its messages and outcome, asserting the stream discipline (adjacent
 * mode) on every run, with small accessors for the complete messages tests look at.
 */
import type { LLMOutcome } from '../../../src/core/interfaces';
import type { CompleteMessage, MessageOf, OmniMessage } from '../../../src/core/omnimessage/types';
import { isComplete, isPayload } from '../../../src/core/omnimessage/guards';
import { assertStreamDiscipline } from '../../helpers/stream-discipline';

export interface Run {
  msgs: OmniMessage[];
  outcome: LLMOutcome;
}

/** Drain `gen`; `onMessage` may act mid-stream (e.g. abort after the first delta). */
export async function collect(gen: AsyncGenerator<OmniMessage, LLMOutcome>, onMessage?: (m: OmniMessage, all: OmniMessage[]) => void): Promise<Run> {
  const msgs: OmniMessage[] = [];
  for (;;) {
    const r = await gen.next();
    if (r.done) {
      assertStreamDiscipline(msgs);
      return { msgs, outcome: r.value };
    }
    msgs.push(r.value);
    onMessage?.(r.value, msgs);
  }
}

export const completes = (msgs: OmniMessage[]): CompleteMessage[] => msgs.filter(isComplete);
export const toolCalls = (msgs: OmniMessage[]): MessageOf<'tool_call'>[] => msgs.filter((m): m is MessageOf<'tool_call'> => isPayload(m, 'tool_call'));
export const texts = (msgs: OmniMessage[]): MessageOf<'text'>[] => msgs.filter((m): m is MessageOf<'text'> => isPayload(m, 'text'));
export const usageOf = (msgs: OmniMessage[]): MessageOf<'token_usage'> | undefined =>
  msgs.find((m): m is MessageOf<'token_usage'> => isPayload(m, 'token_usage'));
/** Payload types in stream order, partials as `partial_text:start` etc. */
export const shape = (msgs: OmniMessage[]): string[] =>
  msgs.map((m) => {
    const p = m.payload as { type: string; event_type?: string };
    return p.event_type ? `${p.type}:${p.event_type}` : p.type;
  });
