/**
 * One managed subagent (engine.md §4.4): its child handle, the round (one child Task) running in the
 * background of any tool call, and what no tool call has delivered yet: origin-tagged child messages
 * (≤4096, oldest dropped) and the child's direct assistant text (≤1 MiB, oldest dropped and counted).
 * A round's outcome is `failed` when the child's stream ends with its own `abort` event or throws.
 */
import * as b from '../../omnimessage/builders';
import type { OmniMessage } from '../../omnimessage/types';
import type { ApproveFn, SubagentHandle } from '../../interfaces';
import { ChangeLatch, errorMessage, sleep } from '../async-utils';
import { MAX_BUFFERED_CHILD_MESSAGES, REPORT_DETAIL_CHARS, UNREAD_BUFFER_CHARS, tail } from '../limits';

export interface RoundOutcome {
  status: 'completed' | 'failed';
  /** Why the round was aborted (failed only). */
  reason?: string;
}

/** How long a kill or an interrupted window waits for the child to close its stream. */
const CHILD_STOP_WAIT_MS = 2_000;

export class SubagentEntry {
  readonly changed = new ChangeLatch();
  running = false;
  lastActivity: number;
  /** Tool calls currently watching this subagent. */
  watchers = 0;
  private messages: OmniMessage[] = [];
  private text = '';
  private droppedText = 0;
  private roundText = '';
  private outcome: RoundOutcome | null = null;
  private controller: AbortController | null = null;
  private roundDone: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly handle: SubagentHandle,
    readonly label: string,
    public background: boolean,
    private readonly now: () => number,
    private readonly onRoundEnd: (entry: SubagentEntry, outcome: RoundOutcome, roundText: string) => void,
  ) {
    this.lastActivity = now();
  }

  /** Start one child Task; the caller makes sure none is running. */
  startRound(prompt: string, approve?: ApproveFn): void {
    const controller = new AbortController();
    this.controller = controller;
    this.running = true;
    this.outcome = null;
    this.roundText = '';
    this.lastActivity = this.now();
    this.roundDone = this.pump(prompt, controller.signal, approve);
  }

  private async pump(prompt: string, signal: AbortSignal, approve?: ApproveFn): Promise<void> {
    let abortReason: string | undefined;
    let segmentStreamed = false;
    let outcome: RoundOutcome;
    try {
      for await (const raw of this.handle.run({ prompt, signal, approve })) {
        const msg = raw.origin?.length ? raw : b.withOrigin(raw, this.handle.sessionId);
        this.pushMessage(msg);
        if (msg.origin?.length !== 1 || msg.type === 'session_meta') continue;
        const p = msg.payload;
        if (p.type === 'partial_text') {
          if (p.event_type === 'start') {
            segmentStreamed = false;
            this.separate();
          } else if (p.event_type === 'delta' && p.text) {
            segmentStreamed = true;
            this.pushText(p.text);
          }
        } else if (p.type === 'text' && p.role === 'assistant') {
          if (!segmentStreamed && p.text) {
            this.separate();
            this.pushText(p.text);
          }
          segmentStreamed = false;
        } else if (p.type === 'abort') {
          abortReason = p.reason ?? 'aborted';
        }
      }
      outcome = abortReason === undefined ? { status: 'completed' } : { status: 'failed', reason: abortReason };
    } catch (err) {
      outcome = { status: 'failed', reason: errorMessage(err) };
    }
    this.running = false;
    this.controller = null;
    this.outcome = outcome;
    this.lastActivity = this.now();
    this.onRoundEnd(this, outcome, this.roundText);
    this.changed.notify();
  }

  /** A newline between two text segments of the child. */
  private separate(): void {
    if (this.roundText !== '' && !this.roundText.endsWith('\n')) this.pushText('\n');
  }

  private pushMessage(msg: OmniMessage): void {
    this.messages.push(msg);
    if (this.messages.length > MAX_BUFFERED_CHILD_MESSAGES) this.messages.shift();
    this.changed.notify();
  }

  private pushText(t: string): void {
    this.text += t;
    this.roundText = tail(this.roundText + t, REPORT_DETAIL_CHARS);
    if (this.text.length > UNREAD_BUFFER_CHARS) {
      const over = this.text.length - UNREAD_BUFFER_CHARS;
      this.text = this.text.slice(over);
      this.droppedText += over;
    }
    this.changed.notify();
  }

  takeMessages(): OmniMessage[] {
    const m = this.messages;
    this.messages = [];
    return m;
  }

  takeText(): string {
    const marker = this.droppedText ? `[... ${this.droppedText} chars of earlier output dropped ...]\n` : '';
    const t = marker + this.text;
    this.text = '';
    this.droppedText = 0;
    return t;
  }

  /** The finished round's outcome, once; null while running or after it was delivered. */
  takeOutcome(): RoundOutcome | null {
    const o = this.outcome;
    this.outcome = null;
    return o;
  }

  /** Abort the running round and wait (bounded) for the child to close its stream. */
  async stopRound(reason: string): Promise<void> {
    this.controller?.abort(new Error(reason));
    await Promise.race([this.roundDone, sleep(CHILD_STOP_WAIT_MS)]);
  }
}
