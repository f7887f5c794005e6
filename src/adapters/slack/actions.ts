/**
 * Button clicks (`block_actions`, validated with zod) → the gateway's ActionEvent. Bolt's `ack()` is called by
 * the adapter as soon as the click arrives (Slack gives 3 s), so the gateway's `answer()` only has something
 * to show: a notice for the clicker alone (an ephemeral message in the thread, e.g. "not yours"). It shows
 * at most once; errors classified `ignore` are swallowed. The thread is the card's thread.
 */
import * as z from 'zod';
import type { ActionAnswer, ActionEvent } from '../contract/messages';
import { classifySlackError } from './errors';
import { slackThread } from './thread';

export const blockActionsSchema = z.looseObject({
  type: z.literal('block_actions'),
  user: z.looseObject({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional(), team_id: z.string().optional() }),
  team: z.looseObject({ id: z.string().min(1) }).nullable().optional(),
  channel: z.looseObject({ id: z.string().min(1) }).optional(),
  container: z.looseObject({ message_ts: z.string().optional(), thread_ts: z.string().optional(), channel_id: z.string().optional() }).optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  trigger_id: z.string().optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional(), action_ts: z.string().optional() })).min(1),
});
export type BlockActions = z.infer<typeof blockActionsSchema>;

/** Posts a notice only `user` sees, in the thread of the card. */
export type EphemeralSender = (channel: string, user: string, text: string, threadTs: string) => Promise<unknown>;

function answerOnce(show: () => EphemeralSender, channel: string, user: string, threadTs: string): (a?: ActionAnswer) => Promise<void> {
  let shown: Promise<void> | undefined;
  return (a) => {
    if (shown || !a?.text) return shown ?? Promise.resolve();
    shown = show()(channel, user, a.text, threadTs).then(
      () => undefined,
      (err: unknown) => {
        const e = classifySlackError(err, 'chat.postEphemeral');
        if (e.kind !== 'ignore') throw e;
      },
    );
    return shown;
  };
}

export function blockActionToEvent(raw: unknown, ephemeral: () => EphemeralSender): ActionEvent | undefined {
  const parsed = blockActionsSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const b = parsed.data;
  const team = b.team?.id ?? b.user.team_id;
  const channel = b.container?.channel_id ?? b.channel?.id;
  const messageTs = b.container?.message_ts ?? b.message?.ts;
  if (!team || !channel || !messageTs) return undefined;
  const threadTs = b.container?.thread_ts ?? b.message?.thread_ts ?? messageTs;
  const action = b.actions[0];
  const thread = slackThread(team, channel, threadTs);
  return {
    platform: 'slack',
    thread,
    user: { id: b.user.id, ...(b.user.name ?? b.user.username ? { name: b.user.name ?? b.user.username } : {}), isBot: false },
    payload: action.value ?? action.action_id,
    message: { thread, messageId: messageTs },
    eventId: b.trigger_id ?? `${messageTs}:${action.action_ts ?? action.action_id}:${b.user.id}`,
    answer: answerOnce(ephemeral, channel, b.user.id, threadTs),
  };
}
