/**
 * Slack's assistant threads (the AI app pane), through Bolt's `Assistant`: when a user opens one
 * (`assistant_thread_started`) the thread is remembered and offered suggested prompts; messages in it (and
 * in any thread of an IM) reach the adapter like other DMs. The thread context (the channel the user looks
 * at) is not kept: the gateway does not use it, and Bolt's default store would spend chat.update calls on
 * it. Titles are set from the session title (the adapter's setTitle).
 */
import { Assistant } from '@slack/bolt';
import * as z from 'zod';

export const SUGGESTED_PROMPTS = [
  { title: 'What can you do?', message: 'What can you do here, and how do approvals work?' },
  { title: 'Look around the workspace', message: 'List the files in your workspace and tell me what they are.' },
  { title: 'Start fresh', message: 'new' },
] as const;

const threadStartedSchema = z.looseObject({
  assistant_thread: z.looseObject({ user_id: z.string().min(1), channel_id: z.string().min(1), thread_ts: z.string().min(1) }),
});

export interface AssistantHooks {
  /** A user opened an assistant thread: remember it, offer prompts (errors are the hook's to log). */
  threadStarted(t: { user: string; channel: string; threadTs: string; team?: string }, offer: (prompts: typeof SUGGESTED_PROMPTS) => Promise<unknown>): Promise<void>;
  /** A message in an assistant (or any IM) thread: the same path as every other message event. */
  userMessage(event: unknown, body: Record<string, unknown>, botUserId: string | undefined): Promise<void>;
}

export function assistantFor(hooks: AssistantHooks): Assistant {
  return new Assistant({
    threadContextStore: { get: async () => ({}), save: async () => undefined },
    threadStarted: async ({ event, body, setSuggestedPrompts }) => {
      const parsed = threadStartedSchema.safeParse(event);
      if (!parsed.success) return;
      const t = parsed.data.assistant_thread;
      const team = typeof (body as { team_id?: unknown }).team_id === 'string' ? (body as { team_id: string }).team_id : undefined;
      await hooks.threadStarted({ user: t.user_id, channel: t.channel_id, threadTs: t.thread_ts, ...(team ? { team } : {}) }, (prompts) =>
        setSuggestedPrompts({ prompts: prompts.map((p) => ({ ...p })) as [{ title: string; message: string }] }),
      );
    },
    threadContextChanged: async () => undefined,
    userMessage: async ({ message, body, context }) => {
      await hooks.userMessage(message, body as unknown as Record<string, unknown>, context.botUserId);
    },
  });
}
