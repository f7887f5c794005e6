/**
 * InboundFlow: a validated MESSAGE_CREATE on its way to the gateway — its channel resolved (from the
 * directory, or one REST lookup shared by the channel's messages so they keep their order), mapped, a
 * thread planned for a mention in a channel, then delivered. It also wraps the gateway's handler so the
 * adapter learns when an event has been handled (slash-command replies are settled then).
 */
import type { Logger } from 'pino';
import type { InboundEvent } from '../contract/inbound-dispatcher';
import type { InboundHandler } from '../contract/messages';
import type { AttachmentLimits } from './attachments';
import type { ChannelDirectory } from './directory';
import { messageToInbound } from './inbound';
import type { MessagePayload } from './payloads';
import type { ThreadOpener } from './threads';

export interface FlowDeps {
  directory: ChannelDirectory;
  threads: ThreadOpener;
  limits: AttachmentLimits;
  botId: () => string;
  deliver(event: InboundEvent): void;
  logger: Logger;
}

export class InboundFlow {
  private readonly after = new Map<string, () => void>();

  constructor(private readonly d: FlowDeps) {}

  async onMessage(m: MessagePayload): Promise<void> {
    try {
      const channel = m.guild_id === undefined ? undefined : await this.d.directory.resolve(m.channel_id);
      const mapped = messageToInbound(m, channel, {
        botId: this.d.botId(),
        isBotRole: (guild, role) => this.d.directory.isBotRole(guild, role),
        attachmentLimit: this.d.limits.limitFor(m.guild_id ?? 'dm'),
      });
      if (!mapped) return;
      if (mapped.openThread) this.d.threads.plan(mapped.message.thread, { ...mapped.openThread, onReply: false });
      this.d.deliver({ kind: 'message', message: mapped.message });
    } catch (err) {
      this.d.logger.warn({ err: (err as Error).message, message: m.id }, 'discord: could not map a message');
    }
  }

  /** Runs `fn` once the gateway has handled the message with this event id. */
  afterHandled(eventId: string, fn: () => void): void {
    this.after.set(eventId, fn);
  }

  /** The gateway's handler, reporting back when each message has been handled. */
  handlerFor(h: InboundHandler): InboundHandler {
    return {
      onMessage: async (m) => {
        try {
          await h.onMessage(m);
        } finally {
          const fn = this.after.get(m.eventId);
          this.after.delete(m.eventId);
          fn?.();
        }
      },
      onAction: (a) => h.onAction(a),
    };
  }
}
