/**
 * The SubagentRunner a top-level Session hands its Environment (engine.md §4.4, §7): `spawn` prechecks
 * (depth limit 1, known agent, known model) and creates a child Session in the same Workspace with
 * `source: "subagent"` and its own trace; the handle runs one Task per prompt (user text from
 * `parent_agent`) and forwards every child message with the child id prepended to `origin`, starting the
 * first run with the child's `session_meta`. Child approvals go through the approve the parent passes down.
 */
import * as b from '../omnimessage/builders';
import type { ApproveFn, RunOptions, SubagentHandle, SubagentRunner, ThinkingLevel } from '../interfaces';
import type { OmniMessage } from '../omnimessage/types';
import type { ModelDescriptor } from './options';
import type { Session } from './session';

export interface SubagentSpawnPlan {
  agentId?: string;
  model: ModelDescriptor;
  thinkingLevel?: ThinkingLevel;
}

export interface SubagentParent {
  depth: number;
  /** Validates the request and returns the plan; throws with a clear message when it cannot be honoured. */
  plan(input: { agentId?: string; modelId?: string; provider?: string; thinkingLevel?: ThinkingLevel }): SubagentSpawnPlan;
  /** Creates the child Session (depth + 1). */
  createChild(plan: SubagentSpawnPlan): Promise<Session>;
}

export const SUBAGENT_DEPTH_LIMIT = 1;

export class SessionSubagentRunner implements SubagentRunner {
  private readonly live = new Set<Session>();

  constructor(private readonly parent: SubagentParent) {}

  async spawn(input: { agentId?: string; modelId?: string; provider?: string; thinkingLevel?: ThinkingLevel }): Promise<SubagentHandle> {
    if (this.parent.depth >= SUBAGENT_DEPTH_LIMIT) throw new Error(`subagents cannot start subagents (depth limit ${SUBAGENT_DEPTH_LIMIT})`);
    const plan = this.parent.plan(input);
    const child = await this.parent.createChild(plan);
    this.live.add(child);
    let metaSent = false;
    const live = this.live;
    return {
      sessionId: child.id,
      async *run(req: { prompt: string; signal?: AbortSignal; approve?: ApproveFn }): AsyncGenerator<OmniMessage> {
        if (!metaSent) {
          metaSent = true;
          yield b.withOrigin(child.meta, child.id);
        }
        const opts: RunOptions = {};
        if (req.signal) opts.signal = req.signal;
        if (req.approve) opts.approve = req.approve;
        if (plan.thinkingLevel) opts.thinkingLevel = plan.thinkingLevel;
        for await (const m of child.run([b.userText(req.prompt, 'parent_agent')], opts)) yield b.withOrigin(m, child.id);
      },
      dispose(): void {
        live.delete(child);
        void child.dispose();
      },
    };
  }

  /** Disposes every child still alive (the parent is going away). */
  async disposeAll(): Promise<void> {
    const all = [...this.live];
    this.live.clear();
    await Promise.all(all.map((c) => c.dispose()));
  }
}
