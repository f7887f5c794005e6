/**
 * The runtime's per-conversation types: a Conversation (adapter, thread, DM-ness, route), the runtime
 * Entry of its session (grants, queue, running Task), a RunningTask (with how it ended, and what a
 * schedule that started it decided). Shared by the session manager, the session opener and the task runner.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { ChatUser } from '../../adapters/contract/messages';
import type { ThreadRef } from '../../adapters/contract/thread-ref';
import type { Session } from '../../core/agent';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { ApprovalMode, ModelSetupProblem } from '../../core/state';
import type { ResolvedRoute } from '../config';
import type { SessionGrants } from './approval-broker';

export interface Conversation {
  adapter: ChannelAdapter;
  thread: ThreadRef;
  isDM: boolean;
  route: ResolvedRoute;
}

/** A Task a schedule started: nobody asked for it in chat, so its approvals and Stop follow its own rules. */
export interface ScheduledTaskRun {
  /** The schedule's name (cards and the reply name it). */
  name: string;
  /** `<project>:<agent>:<name>`. */
  id: string;
  /** The run's approval mode, fixed for the Task (see scheduler/approval-rule.ts). */
  mode: ApprovalMode;
  /** A direct conversation (one user and the bot): that user may decide its cards and stop it. */
  openToThread: boolean;
}

/** How a Task ended, for whoever waits on it (a scheduled run's row). */
export interface TaskOutcome {
  status: 'completed' | 'aborted' | 'auth' | 'failed';
  /** The abort's reason, when it says one. */
  reason?: string;
  /** The platform refused the reply (the Task ran, nobody saw its answer). */
  deliveryError?: string;
}

export interface RunningTask {
  taskId: string;
  abort: AbortController;
  /** `platform:user_id` of who started it (`schedule:<id>` for a scheduled run). */
  requester: string;
  /** Epoch ms the Task started (the dashboard's live view). */
  startedAt: number;
  done: Promise<void>;
  /** Set when the Task started on a schedule. */
  scheduled?: ScheduledTaskRun;
  /** The chat message that started it (the first step of its delivery timeline). */
  inbound?: { messageId: string; eventId: string; sentAt: number };
  /** Set once the Task has ended. */
  outcome?: TaskOutcome;
}

export interface Entry extends Conversation {
  key: string;
  session: Session;
  sessionGrants: SessionGrants;
  running?: RunningTask;
  queue: { input: OmniMessage[]; user: ChatUser }[];
  lastActive: number;
  lastUser: ChatUser;
  unsubscribeNotices: () => void;
  /** Why the session's model cannot be called (no endpoint configured); answered instead of running a Task. */
  modelProblem?: ModelSetupProblem;
}

export const userRef = (platform: string, u: ChatUser) => `${platform}:${u.id}`;
