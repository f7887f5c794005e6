/**
 * A Session (engine.md §0, §2.1, §8.2): one conversation of an Agent in a Workspace, driving its context
 * engine. `run()` is one Task and `compact()` a manual compaction; only one of them at a time — a second
 * call throws `SessionBusyError` synchronously, before any message (the only exception this API throws
 * besides input validation). Inputs are checked at this boundary; everything after is a message stream.
 */
import { parseOmniMessage } from '../omnimessage/guards';
import type { BackgroundNotice, BareUsage, EnvironmentInterface, ModelFactory, RunOptions, ToolCallMessage, ToolPermission, ToolReach } from '../interfaces';
import type { OmniMessage, SessionMetaMessage, TokenCounts } from '../omnimessage/types';
import type { ContextEngine, EngineStatus } from '../engine/context-engine';
import type { Compactability } from '../engine/compaction';
import type { ModelDescriptor } from './options';
import { cleanTitle, fallbackTitle, titlePrompt } from './title';

export interface SessionParts {
  id: string;
  meta: SessionMetaMessage;
  workspace: string;
  scratchpadDir: string;
  model: ModelDescriptor;
  engine: ContextEngine;
  environment: EnvironmentInterface;
  /** Builds the title-only model factory on first use. */
  titleModels: () => ModelFactory;
  /** Extra cleanup (child sessions). */
  onDispose?: () => Promise<void> | void;
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
  private readonly engine: ContextEngine;
  private readonly environment: EnvironmentInterface;
  private readonly titleModelsOf: () => ModelFactory;
  private titleModels?: ModelFactory;
  private readonly onDispose?: () => Promise<void> | void;
  private firstUserText?: string;
  private disposed = false;

  constructor(parts: SessionParts) {
    this.id = parts.id;
    this.meta = parts.meta;
    this.workspace = parts.workspace;
    this.scratchpadDir = parts.scratchpadDir;
    this.model = parts.model;
    this.engine = parts.engine;
    this.environment = parts.environment;
    this.titleModelsOf = parts.titleModels;
    this.onDispose = parts.onDispose;
  }

  /** A tool's permission (`r` / `rw`), undefined for unknown tools: what approval modes like read-only decide on. */
  toolPermission(name: string): ToolPermission | undefined {
    return this.environment.toolPermission(name);
  }

  /** Where a tool call's paths lie relative to the Session's confinement: `outside` is never decided by a mode alone. */
  toolReach(call: ToolCallMessage): Promise<ToolReach> {
    return this.environment.toolReach?.(call) ?? Promise.resolve('inside');
  }

  get status(): EngineStatus {
    return this.engine.status;
  }

  get source(): 'subagent' | 'schedule' | undefined {
    return this.meta.payload.source;
  }

  /** Session token totals (kept across compaction and resume). */
  get tokens(): TokenCounts {
    return this.engine.tokens;
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
    return this.engine.steer(text, images);
  }

  unsteer(id: string): boolean {
    return this.engine.unsteer(id);
  }

  /** Manual compaction (between Tasks). Throws `SessionBusyError` when busy; yields nothing unless compactable. */
  compact(opts: { signal?: AbortSignal } = {}): AsyncGenerator<OmniMessage, void, undefined> {
    return this.engine.compact(opts);
  }

  compactability(): Compactability {
    return this.engine.compactability();
  }

  skipReconnectWait(): boolean {
    return this.engine.skipReconnectWait();
  }

  /** Background notices are waiting while no Task runs: a host may start one (`run([])` delivers them). */
  onIdleNotice(listener: (notices: BackgroundNotice[]) => void): () => void {
    return this.engine.onIdleNotice(listener);
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
    this.engine.dispose();
    await this.engine.flush();
    await this.onDispose?.();
    await this.environment.dispose?.();
  }
}
