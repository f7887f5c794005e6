/**
 * The engine's side of the trace (engine.md §5, §2.9): every message goes through `write` in stream
 * order; a fresh session's file starts with its `session_meta`; after a compaction the next write first
 * rotates to file index+1, headed by `session_meta` + `tool_list_ready`. Writes are queued, not awaited
 * (the sink serializes them); `flush` waits for the disk. Partials and origin-tagged messages never
 * reach the sink, so they cannot trigger a rotation either.
 */
import * as b from '../omnimessage/builders';
import { isTraceable } from '../omnimessage/guards';
import type { OmniMessage, SessionMetaMessage } from '../omnimessage/types';

/** What the engine needs from a trace writer (`TraceWriter` satisfies it). */
export interface TraceSink {
  append(msg: OmniMessage): Promise<void>;
  rotate(head: OmniMessage[]): Promise<void>;
  flush(): Promise<void>;
}

export class EngineTrace {
  private metaOwed: boolean;
  private rotationOwed = false;
  private toolList?: OmniMessage;

  constructor(
    private readonly sink: TraceSink | undefined,
    private readonly meta: SessionMetaMessage | undefined,
    opts: { metaFirst: boolean },
  ) {
    this.metaOwed = opts.metaFirst && meta !== undefined;
  }

  /** Remember the tool list that heads rotated files. */
  setToolList(msg: OmniMessage): void {
    this.toolList = msg;
  }

  /** The next write starts a new file. */
  rotateBeforeNextWrite(): void {
    this.rotationOwed = true;
    this.metaOwed = false;
  }

  get rotationPending(): boolean {
    return this.rotationOwed;
  }

  write(msg: OmniMessage): void {
    if (!this.sink || !isTraceable(msg)) return;
    if (this.rotationOwed) {
      this.rotationOwed = false;
      const head: OmniMessage[] = [];
      if (this.meta) head.push(b.sessionMeta(this.meta.payload));
      if (this.toolList) head.push(this.toolList);
      void this.sink.rotate(head);
    } else if (this.metaOwed) {
      this.metaOwed = false;
      if (this.meta) void this.sink.append(this.meta);
    }
    void this.sink.append(msg);
  }

  flush(): Promise<void> {
    return this.sink ? this.sink.flush() : Promise.resolve();
  }
}
