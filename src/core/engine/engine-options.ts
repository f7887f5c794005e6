/**
 * The public option and status types of the context engine (engine.md §2): what a host passes to build a
 * `ContextEngine`, what each `run()` takes, and which of its three states the engine is in. Kept apart so
 * the engine's phases can share them without importing the class.
 */
import type { EnvironmentInterface, ModelFactory, RunOptions, ToolDefinition } from '../interfaces';
import type { SessionMetaMessage } from '../omnimessage/types';
import type { CommandPolicy } from './approval';
import type { Clock } from './clock';
import type { CompactionConfig } from './compaction';
import type { ResumeState } from './replay';
import type { TraceSink } from './trace-sink';

export type EngineStatus = 'idle' | 'running' | 'compacting';

export interface ContextEngineOptions {
  environment: EnvironmentInterface;
  /** Builds the Session's model factory once the tool list is known (first run of this runtime). */
  models: (tools: ToolDefinition[]) => ModelFactory;
  trace?: TraceSink;
  sessionMeta?: SessionMetaMessage;
  /** A new session: `sessionMeta` is the trace's first record. */
  metaFirst?: boolean;
  /** Requests per Task; ≤0 = unlimited. */
  maxTurns?: number;
  /** Absent = compaction unsupported. */
  compaction?: CompactionConfig;
  contextWindow?: number | string;
  /** Whether steering images go to the model as images (else as path lines). Default true. */
  vision?: boolean;
  clock?: Clock;
  commandPolicy?: CommandPolicy;
  resume?: ResumeState;
  /** Used in SessionBusyError messages. */
  sessionId?: string;
}

export type EngineRunOptions = RunOptions;
