/**
 * A Session (engine.md §0, §2.1, §8.2): one conversation of an Agent in a Workspace, driving its context
 * engine. `run()` is one Task and `compact()` a manual compaction; only one of them at a time — a second
 * call throws `SessionBusyError` synchronously, before any message (the only exception this API throws
 * besides input validation). Inputs are checked at this boundary; everything after is a message stream.
 * A new session's context engine and Environment (tools, managers) are assembled at the first call that
 * needs them, so a session that is opened and stays idle holds little more than its ids and its meta; a
 * builder that fails then throws from that call (`run`, `compact`), as it would have from `createSession`.
 */
import { parseOmniMessage } from '../omnimessage/guards';
import type { BackgroundNotice, BareUsage, EnvironmentInterface, ModelFactory, RunOptions, ToolCallMessage, ToolPermission, ToolReach } from '../interfaces';
import type { OmniMessage, SessionMetaMessage, TokenCounts } from '../omnimessage/types';
import type { ContextEngine, EngineStatus } from '../engine/context-engine';
import type { Compactability } from '../engine/compaction';
import type { ModelDescriptor } from './options';
import { cleanTitle, fallbackTitle, titlePrompt } from './title';

/** What a session runs on, assembled when first needed. */
export interface SessionCore {
  engine: ContextEngine;
  environment: EnvironmentInterface;
  /** Extra cleanup (child sessions). */
  onDispose?: () => Promise<void> | void;
}

export interface SessionParts {
  id: string;
  meta: SessionMetaMessage;
  workspace: string;
  scratchpadDir: string;
  model: ModelDescriptor;
  /** Called once, at the first call that needs the engine or the Environment. */
  assemble: () => SessionCore;
  /** Session token totals before the engine exists (a resumed session's, else zero). */
  tokens: TokenCounts;
  /** Builds the title-only model factory on first use. */
  titleModels: () => ModelFactory;
}

/** Validates a run's input: complete user-side messages only (text, image_url, inline_data). */
export function checkNewMessages(newMessages: unknown): OmniMessage[] {
  if (!Array.isArray(newMessages)) throw new TypeError('run: newMessages must be an array of OmniMessages');
  newMessages.forEach((m, i) => {
    const r = parseOmniMessage(m);
    if (!r.ok) throw new TypeError(`run: newMessages[${i}]: ${r.error}`);
    const msg = r.message;
    const p = msg.type === 'model_msg' ? msg.payload : undefined;
    const userSide = p !== undefined && (p.type === 'image_url' || ((p.type === 'text' || p.type === 'inline_data') && p.role === 'user'));
    if (!userSide) {
      const what = msg.type === 'session_meta' ? 'session_meta' : `${msg.type} ${msg.payload.type}${'role' in msg.payload ? ` (${String(msg.payload.role)})` : ''}`;
      throw new TypeError(`run: newMessages[${i}]: expected a user text, image_url or inline_data message, found ${what}`);
    }
  });
  return newMessages as OmniMessage[];
}

export class Session {
  readonly id: string;
  readonly meta: SessionMetaMessage;
  readonly workspace: string;
  readonly scratchpadDir: string;
  readonly model: ModelDescriptor;
  private assemble?: () => SessionCore;
  private built?: SessionCore;
  private readonly initialTokens: TokenCounts;
  /** Idle-notice listeners, kept here so subscribing never assembles the engine. */
  private readonly idleListeners = new Set<(notices: BackgroundNotice[]) => void>();
  private readonly titleModelsOf: () => ModelFactory;
  private titleModels?: ModelFactory;
  private firstUserText?: string;
  private disposed = false;

  constructor(parts: SessionParts) {
    this.id = parts.id;
    this.meta = parts.meta;
    this.workspace = parts.workspace;
    this.scratchpadDir = parts.scratchpadDir;
    this.model = parts.model;
    this.assemble = parts.assemble;
    this.initialTokens = parts.tokens;
    this.titleModelsOf = parts.titleModels;
  }

  private get core(): SessionCore {
    if (!this.built) {
      if (!this.assemble) throw new Error('the session is disposed');
      const core = this.assemble();
      this.assemble = undefined;
      core.engine.onIdleNotice((notices) => {
        for (const l of [...this.idleListeners]) {
          try {
            l(notices);
          } catch {
            // one host listener's failure must not keep the notice from the others
          }
        }
      });
      this.built = core;
    }
    return this.built;
  }

  /** Assemble the engine and Environment now (resume does, so a failing builder is reported there). */
  assembleNow(): void {
    void this.core;
  }

  private get engine(): ContextEngine {
    return this.core.engine;
  }

  /** A tool's permission (`r` / `rw`), undefined for unknown tools: what approval modes like read-only decide on. */
  toolPermission(name: string): ToolPermission | undefined {
    return this.core.environment.toolPermission(name);
  }

  /** Where a tool call's paths lie relative to the Session's confinement: `outside` is never decided by a mode alone. */
  toolReach(call: ToolCallMessage): Promise<ToolReach> {
    return this.core.environment.toolReach?.(call) ?? Promise.resolve('inside');
  }

  get status(): EngineStatus {
    return this.built ? this.built.engine.status : 'idle';
  }

  get source(): 'subagent' | 'schedule' | undefined {
    return this.meta.payload.source;
  }

  /** Session token totals (kept across compaction and resume). */
  get tokens(): TokenCounts {
    return this.built ? this.built.engine.tokens : { ...this.initialTokens };
  }

  /** One Task over `newMessages` (which are traced, not echoed). Throws `SessionBusyError` when busy. */
  run(newMessages: OmniMessage[], opts: RunOptions = {}): AsyncGenerator<OmniMessage, void, undefined> {
    const input = checkNewMessages(newMessages);
    if (this.firstUserText === undefined) {
      const t = input.find((m) => m.type === 'model_msg' && m.payload.type === 'text');
      if (t && t.type === 'model_msg' && t.payload.type === 'text') this.firstUserText = t.payload.text;
    }
    return this.engine.run(input, opts);
  }

  /** Steer the running Task; the steering id, or false when no Task runs (send a normal Task instead). */
  steer(text: string, images: string[] = []): string | false {
    if (typeof text !== 'string') throw new TypeError('steer: text must be a string');
    if (!Array.isArray(images) || images.some((i) => typeof i !== 'string' || i === '')) throw new TypeError('steer: images must be non-empty strings');
    if (text.trim() === '' && images.length === 0) throw new TypeError('steer: needs text or at least one image');
    return this.built ? this.built.engine.steer(text, images) : false;
  }

  unsteer(id: string): boolean {
    return this.built ? this.built.engine.unsteer(id) : false;
  }

  /** Manual compaction (between Tasks). Throws `SessionBusyError` when busy; yields nothing unless compactable. */
  compact(opts: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
    return this.engine.compact(opts);
  }

  compactability(): Compactability {
    return this.engine.compactability();
  }

  skipReconnectWait(): boolean {
    return this.built ? this.built.engine.skipReconnectWait() : false;
  }

  /** Background notices are waiting while no Task runs: a host may start one (`run([])` delivers them). */
  onIdleNotice(listener: (notices: BackgroundNotice[]) => void): () => void {
    this.idleListeners.add(listener);
    return () => this.idleListeners.delete(listener);
  }

  /**
   * A ≤30-char title from a bare model call over `material` (default: this session's first user text);
   * the first line of that text when the model gives nothing usable. Never throws. `onUsage` hears what the
   * title request cost (it is not in the trace).
   */
  async generateTitle(material: { user?: string; assistant?: string; signal?: AbortSignal; onUsage?: (u: BareUsage) => void } = {}): Promise<string> {
    const user = material.user ?? this.firstUserText ?? '';
    const fallback = fallbackTitle(user);
    if (user.trim() === '') return fallback;
    try {
      this.titleModels ??= this.titleModelsOf();
      const gen = this.titleModels.bareGenerate;
      if (!gen) return fallback;
      const opts = { ...(material.signal ? { signal: material.signal } : {}), ...(material.onUsage ? { onUsage: material.onUsage } : {}) };
      const raw = await gen.call(this.titleModels, titlePrompt(user, material.assistant), opts);
      const t = cleanTitle(typeof raw === 'string' ? raw : '');
      return t !== '' ? t : fallback;
    } catch {
      return fallback;
    }
  }

  /** Stops any running work, waits for the trace, releases the Environment. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.idleListeners.clear();
    const core = this.built;
    this.assemble = undefined;
    if (!core) return;
    core.engine.dispose();
    await core.engine.flush();
    await core.onDispose?.();
    await core.environment.dispose?.();
  }
}
