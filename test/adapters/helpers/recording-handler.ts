/**
 * A recording InboundHandler for adapter tests: keeps every message, action and opening an adapter delivers, lets a
 * test hook into each, and `waitFor` resolves once a predicate holds, re-checked after every event (no
 * sleeps, no polling).
 */
import { EventEmitter } from 'node:events';
import type { ActionEvent, InboundHandler, InboundMessage } from '../../../src/adapters/contract/messages';
import type { ThreadRef } from '../../../src/adapters/contract/thread-ref';

/** Records what the adapter delivers; `onMessage`/`onAction` hooks let a test act on an event. */
export class RecordingHandler extends EventEmitter implements InboundHandler {
  readonly messages: InboundMessage[] = [];
  readonly actions: ActionEvent[] = [];
  readonly opened: ThreadRef[] = [];
  onMessageHook?: (m: InboundMessage) => Promise<void>;
  onActionHook?: (a: ActionEvent) => Promise<void>;

  async onMessage(m: InboundMessage): Promise<void> {
    await this.onMessageHook?.(m);
    this.messages.push(m);
    this.emit('event');
  }

  async onAction(a: ActionEvent): Promise<void> {
    await this.onActionHook?.(a);
    this.actions.push(a);
    this.emit('event');
  }

  async onOpened(t: ThreadRef): Promise<void> {
    this.opened.push(t);
    this.emit('event');
  }

  /** Resolves once `predicate` holds, re-checked after every delivered event. */
  waitFor<T>(predicate: () => T | undefined | false, label: string, timeoutMs = 5_000): Promise<T> {
    const first = predicate();
    if (first) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        const v = predicate();
        if (!v) return;
        cleanup();
        resolve(v);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${label}; got ${this.messages.length} messages, ${this.actions.length} actions`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('event', check);
      };
      this.on('event', check);
    });
  }
}
