/**
 * A scripted `SubagentRunner` for the subagent tools: each spawned child runs a script per round (its
 * messages are origin-tagged with the child's session id, as a real child Session's are), records the
 * prompts, signals and approve functions it got, and can be held mid-round with gates.
 */
import * as b from '../../../src/core/omnimessage/builders';
import type { OmniMessage } from '../../../src/core/omnimessage/types';
import type { ApproveFn, SubagentHandle, SubagentRunner, ThinkingLevel } from '../../../src/core/interfaces';

export interface RoundInput {
  prompt: string;
  signal: AbortSignal;
  approve?: ApproveFn;
}
export type Script = (input: RoundInput, child: FakeChild) => AsyncGenerator<OmniMessage>;

export class Gate {
  private open!: () => void;
  readonly opened = new Promise<void>((r) => (this.open = r));
  release(): void {
    this.open();
  }
}

/** Resolves when the gate opens or the signal aborts; true if aborted. */
export function hold(gate: Gate, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    signal.addEventListener('abort', () => resolve(true), { once: true });
    void gate.opened.then(() => resolve(false));
  });
}

export class FakeChild implements SubagentHandle {
  rounds: RoundInput[] = [];
  disposed = false;
  tagOrigin = true;
  constructor(readonly sessionId: string, private readonly script: Script) {}

  async *run(input: { prompt: string; signal?: AbortSignal; approve?: ApproveFn }): AsyncGenerator<OmniMessage> {
    const round: RoundInput = { prompt: input.prompt, signal: input.signal ?? new AbortController().signal, approve: input.approve };
    this.rounds.push(round);
    for await (const m of this.script(round, this)) yield this.tagOrigin ? b.withOrigin(m, this.sessionId) : m;
  }

  dispose(): void {
    this.disposed = true;
  }
}

export class FakeRunner implements SubagentRunner {
  children: FakeChild[] = [];
  spawns: { agentId?: string; modelId?: string; provider?: string; thinkingLevel?: ThinkingLevel }[] = [];
  failWith?: string;
  private n = 0;
  constructor(private readonly script: Script) {}

  async spawn(input: { agentId?: string; modelId?: string; provider?: string; thinkingLevel?: ThinkingLevel }): Promise<SubagentHandle> {
    if (this.failWith) throw new Error(this.failWith);
    this.spawns.push(input);
    const child = new FakeChild(`session-2026-01-01-00-00-00-${(0xa0000000 + ++this.n).toString(16)}`, this.script);
    this.children.push(child);
    return child;
  }
}

export const meta = (sessionId: string) =>
  b.sessionMeta({ session_id: sessionId, provider: 'p', model_id: 'm', model_context_window: 1000, system_prompt: '', agent_state: '/a', workspace: '/w', source: 'subagent' });

/** One streamed assistant text segment, then its complete message. */
export function* textSegment(chunks: string[], stop: 'completed' | 'aborted' = 'completed'): Generator<OmniMessage> {
  yield b.partialText('start');
  for (const c of chunks) yield b.partialText('delta', c);
  yield b.partialText('stop', '', stop);
  yield b.assistantText(chunks.join(''), { stop_reason: stop });
}
