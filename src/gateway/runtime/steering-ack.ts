/**
 * The acknowledgement of a message steered into a running Task: a 👀 reaction where the platform has
 * reactions, else a short notice. Best-effort: a failure is logged at debug and never reaches the Task.
 */
import type { InboundMessage } from '../../adapters/contract/messages';
import type { Logger } from 'pino';
import type { Conversation } from './conversation';
import type { Outbox } from './outbox';

export async function acknowledgeSteering(outbox: Outbox, logger: Logger, conv: Conversation, msg: InboundMessage): Promise<void> {
  try {
    if (conv.adapter.react) await conv.adapter.react({ thread: conv.thread, messageId: msg.messageId }, '👀');
    else await outbox.post(conv.adapter, conv.thread, { text: '👀 Got it — adding that to the running task.' });
  } catch (err) {
    logger.debug({ err: (err as Error).message }, 'steering acknowledgement failed');
  }
}
