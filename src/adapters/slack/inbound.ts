/**
 * Slack events → the gateway's neutral InboundMessage (payloads validated with zod). `app_mention` in a
 * channel: the thread of that message is the session (`thread_ts ?? ts`). `message` in an IM: a DM,
 * answered in a thread under the user's message. `message` in a thread of a channel without a mention: a
 * follow-up (continued when the thread has a session and thread_follow_up is on). Mentions also arrive as
 * `message` events; those are left to `app_mention` so each message acts once. Bots, edits, deletions and
 * other subtypes are ignored. Text loses the bot's mention; words like "stop" become commands.
 */
import * as z from 'zod';
import type { InboundAttachment, InboundMessage } from '../contract/messages';
import { slackFileAttachment, slackFileSchema, type FileFetcher } from './attachments';
import { stripBotMention, textCommand, unescapeSlackText } from './text';
import { isImChannel, slackThread } from './thread';

export const messageEventSchema = z.looseObject({
  type: z.enum(['message', 'app_mention']),
  channel: z.string().min(1),
  user: z.string().min(1).optional(),
  text: z.string().optional(),
  ts: z.string().regex(/^\d+\.\d+$/),
  thread_ts: z.string().regex(/^\d+\.\d+$/).optional(),
  subtype: z.string().optional(),
  bot_id: z.string().optional(),
  channel_type: z.string().optional(),
  files: z.array(z.unknown()).optional(),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

/** The part of the Events API envelope the mapping reads. */
export interface EnvelopeInfo {
  eventId: string;
  team: string;
}

export interface InboundContext {
  botUserId: string;
  threadFollowUp: boolean;
  fetchFile: FileFetcher;
}

/** Subtypes that are still a person writing. */
const PERSON_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

function attachmentsOf(e: MessageEvent, fetch: FileFetcher): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  for (const raw of e.files ?? []) {
    const f = slackFileSchema.safeParse(raw);
    if (f.success) out.push(slackFileAttachment(f.data, fetch));
  }
  return out;
}

/** What kind of message this is for the bot, or undefined when the bot does not act on it. */
function role(e: MessageEvent, ctx: InboundContext): 'mention' | 'dm' | 'follow_up' | undefined {
  if (!PERSON_SUBTYPES.has(e.subtype) || e.bot_id || !e.user || e.user === ctx.botUserId) return undefined;
  if (e.type === 'app_mention') return isImChannel(e.channel) ? undefined : 'mention';
  if (e.channel_type === 'im' || isImChannel(e.channel)) return 'dm';
  // a mention also arrives as app_mention: that event answers it
  if (stripBotMention(e.text ?? '', ctx.botUserId).mentioned) return undefined;
  return e.thread_ts !== undefined && e.thread_ts !== e.ts && ctx.threadFollowUp ? 'follow_up' : undefined;
}

export function eventToInbound(raw: unknown, env: EnvelopeInfo, ctx: InboundContext): InboundMessage | undefined {
  const parsed = messageEventSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const e = parsed.data;
  const kind = role(e, ctx);
  if (!kind) return undefined;
  const text = textCommand(unescapeSlackText(stripBotMention(e.text ?? '', ctx.botUserId).text));
  const attachments = attachmentsOf(e, ctx.fetchFile);
  if (text.trim() === '' && attachments.length === 0) return undefined;
  return {
    platform: 'slack',
    thread: slackThread(env.team, e.channel, e.thread_ts ?? e.ts),
    user: { id: e.user!, isBot: false },
    text,
    attachments,
    mentionsBot: kind !== 'follow_up',
    ...(kind === 'follow_up' ? { followUp: true } : {}),
    isDM: kind === 'dm',
    eventId: env.eventId,
    messageId: e.ts,
    sentAt: Math.round(Number(e.ts) * 1000),
  };
}
