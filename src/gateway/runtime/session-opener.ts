/**
 * SessionOpener: binding key → the session of a conversation. Resumes the bound session from its trace
 * when there is one, else creates a session with the route's agent and workspace policy (`fixed` path,
 * `per_channel` directory named by the adapter's workspace key, or a temp workspace) and binds it. A
 * scheduled run may instead ask for a fresh session (source "schedule") or a given one; either way the
 * conversation is bound to it. Opening is serialized per key, so two first messages make one session.
 * A new session's row and binding are one store write; a `per_channel` directory is made once per process
 * (and again only if it disappeared). Never throws: a broken agent, an unknown session or model is a message.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../adapters/contract/clock';
import type { ChatUser } from '../../adapters/contract/messages';
import type { Agent, CreateSessionOptions, Session } from '../../core/agent';
import { modelSetupProblem, type AgentState } from '../../core/state';
import type { Logger } from 'pino';
import type { ResolvedRoute } from '../config';
import type { GatewayStore } from '../store';
import type { AgentPool } from './agent-pool';
import { SessionGrants } from './approval-broker';
import type { Conversation, Entry } from './conversation';

export interface SessionOpenerOptions {
  store: GatewayStore;
  pool: AgentPool;
  clock: Clock;
  logger: Logger;
}

/** What a scheduled run opens instead of the conversation's bound session. */
export type OpenHow =
  | { kind: 'fresh'; workspace?: string; model?: { provider: string; modelId: string }; title?: string }
  | { kind: 'session'; sessionId: string };

export class SessionOpener {
  private readonly opening = new Map<string, Promise<Entry | string>>();
  /** `per_channel` directories this process made or found. */
  private readonly madeDirs = new Set<string>();

  constructor(private readonly o: SessionOpenerOptions) {}

  /** An open of `key` under way, if any. */
  inFlight(key: string): Promise<unknown> | undefined {
    return this.opening.get(key);
  }

  /**
   * The entry for `key` (made by `onOpened` when new), or why the conversation's agent cannot run. `how`
   * (scheduled runs) is only honoured when no open of `key` is under way: the caller waits for that first.
   */
  open(conv: Conversation, key: string, user: ChatUser | undefined, onOpened: (e: Entry) => void, how?: OpenHow): Promise<Entry | string> {
    let p = this.opening.get(key);
    if (!p) {
      p = (how ? this.buildFor(conv, key, how) : this.build(conv, key, user))
        .then((e) => {
          if (typeof e !== 'string') onOpened(e);
          return e;
        })
        .finally(() => this.opening.delete(key));
      this.opening.set(key, p);
    }
    return p;
  }

  private async build(conv: Conversation, key: string, user?: ChatUser): Promise<Entry | string> {
    const loaded = await this.o.pool.get(conv.route.project, conv.route.agent, conv.route.tools.network);
    if (!loaded.ok) {
      this.o.logger.error({ route: conv.route.name, errors: loaded.errors.map((e) => e.message) }, 'agent could not be loaded');
      return `This conversation's agent (${conv.route.project}/${conv.route.agent}) could not be loaded. The operator has the details in the gateway log.`;
    }
    const { agent, state } = loaded;
    let session: Session | undefined;
    const bound = await this.o.store.resolveBinding(key);
    if (bound) {
      const resumed = await agent.resumeSession(bound);
      if (resumed.ok) session = resumed.session;
      else if (resumed.error.code === 'not_found' && (await this.sameAgent(bound, conv))) {
        // Opened (a /mode, a first message cut off) but never traced: it starts now under its own id, keeping its row.
        session = await this.createIn(agent, conv, state, { sessionId: bound });
      } else this.o.logger.warn({ sessionId: bound, error: resumed.error }, 'bound session could not be resumed; starting a new one');
    }
    if (!session) {
      session = await this.createIn(agent, conv, state, {});
      await this.openRow(conv, key, session.id);
    }
    return this.entryOf(conv, key, session, state, user);
  }

  private entryOf(conv: Conversation, key: string, session: Session, state: AgentState, user: ChatUser | undefined): Entry {
    const model = state.resolveModel({ provider: session.model.provider, model_id: session.model.modelId });
    const modelProblem = model.ok ? modelSetupProblem(model.value, state.paths.projectConfig) : undefined;
    return {
      ...conv,
      key,
      session,
      ...(modelProblem ? { modelProblem } : {}),
      sessionGrants: new SessionGrants(),
      queue: [],
      lastActive: this.o.clock.now(),
      lastUser: user ?? { id: 'unknown' },
      unsubscribeNotices: () => undefined,
    };
  }

  private async buildFor(conv: Conversation, key: string, how: OpenHow): Promise<Entry | string> {
    const loaded = await this.o.pool.get(conv.route.project, conv.route.agent, conv.route.tools.network);
    if (!loaded.ok) {
      this.o.logger.error({ route: conv.route.name, errors: loaded.errors.map((e) => e.message) }, 'agent could not be loaded');
      return `the agent ${conv.route.project}/${conv.route.agent} could not be loaded (see the gateway log)`;
    }
    const { agent, state } = loaded;
    let session: Session;
    if (how.kind === 'session') {
      const resumed = await agent.resumeSession(how.sessionId);
      if (!resumed.ok) return `session ${how.sessionId} cannot be resumed: ${resumed.error.message}`;
      session = resumed.session;
    } else {
      if (how.model && !state.resolveModel({ provider: how.model.provider, model_id: how.model.modelId }).ok) {
        return `the project has no model ${how.model.provider}/${how.model.modelId}`;
      }
      const opts: CreateSessionOptions = { source: 'schedule', ...(how.model ? { model: how.model } : {}) };
      try {
        session = how.workspace ? await agent.createSession({ ...opts, workspace: how.workspace }) : await this.createIn(agent, conv, state, opts);
      } catch (err) {
        return (err as Error).message;
      }
      await this.openRow(conv, key, session.id, how.title);
      return this.entryOf(conv, key, session, state, undefined);
    }
    await this.o.store.bind(key, session.id);
    return this.entryOf(conv, key, session, state, undefined);
  }

  /**
   * The new session's row, bound to the conversation. Its approval mode is the route's: what the
   * conversation's chat turns use (a scheduled Task itself runs with its schedule's mode).
   */
  private openRow(conv: Conversation, key: string, sessionId: string, title?: string): Promise<unknown> {
    return this.o.store.openSession({
      session_id: sessionId,
      project_id: conv.route.project,
      agent_id: conv.route.agent,
      route: conv.route.name,
      platform: conv.adapter.platform,
      binding_key: key,
      approval_mode: conv.route.approval_mode,
      ...(title ? { title } : {}),
      created_at: this.o.clock.now(),
    });
  }

  private async sameAgent(sessionId: string, conv: Conversation): Promise<boolean> {
    const row = await this.o.store.getSession(sessionId);
    return row !== undefined && row.project_id === conv.route.project && row.agent_id === conv.route.agent;
  }

  /** A new session in the route's workspace; a `per_channel` directory removed since it was made is made again. */
  private async createIn(agent: Agent, conv: Conversation, state: AgentState, opts: CreateSessionOptions): Promise<Session> {
    const workspace = await this.workspaceFor(conv, state.paths.workspacesDir);
    try {
      return await agent.createSession({ ...opts, ...(workspace ? { workspace } : {}) });
    } catch (err) {
      if (!workspace || !this.madeDirs.delete(workspace)) throw err;
      await this.ensureDir(workspace);
      return agent.createSession({ ...opts, workspace });
    }
  }

  private async workspaceFor(conv: Conversation, agentWorkspaces: string): Promise<string | undefined> {
    const route: ResolvedRoute = conv.route;
    if (route.workspace_policy === 'fixed' && route.workspace_path) return route.workspace_path;
    if (route.workspace_policy !== 'per_channel') return undefined;
    const key = conv.adapter.place(conv.thread).workspaceKey;
    const dir = join(route.workspace_path ?? agentWorkspaces, `${conv.adapter.platform}-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`);
    if (!this.madeDirs.has(dir)) await this.ensureDir(dir);
    return dir;
  }

  private async ensureDir(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }
}
