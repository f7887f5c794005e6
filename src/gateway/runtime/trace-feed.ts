/**
 * TraceFeed: every batch of OmniMessages the engine writes to a session's trace, published to whoever
 * watches that session (the dashboard's live transcript over SSE). It sees exactly what a later read of the
 * trace files returns, in the same order, so a page that loaded the transcript and then follows the feed
 * shows what the files hold. Nothing is buffered: a watcher gets what is written after it subscribed.
 */
import { EventEmitter } from 'node:events';
import type { OmniMessage } from '../../core/omnimessage/types';

export type TraceListener = (msgs: readonly OmniMessage[]) => void;

export class TraceFeed {
  private readonly events = new EventEmitter();

  constructor() {
    this.events.setMaxListeners(0);
  }

  publish(sessionId: string, msgs: readonly OmniMessage[]): void {
    if (msgs.length > 0) this.events.emit(sessionId, msgs);
  }

  /** Returns the unsubscribe function. */
  subscribe(sessionId: string, listener: TraceListener): () => void {
    this.events.on(sessionId, listener);
    return () => this.events.off(sessionId, listener);
  }
}
