/**
 * The runtime's per-conversation types: a Conversation (adapter, thread, DM-ness, route), the runtime
 * Entry of its session (grants, queue, running Task) and a RunningTask. Shared by the session manager,
 * the session opener and the task runner.
 */
import type { ChannelAdapter } from '../../adapters/contract/adapter';
import type { ChatUser } from '../../adapters/contract/messages';
import type { ThreadRef } from '../../adapters/contract/thread-ref';
import type { Session } from '../../core/agent';
import type { OmniMessage } from '../../core/omnimessage/types';
import type { ModelSetupProblem } from '../../core/state';
import type { ResolvedRoute } from '../config';
import type { SessionGrants } from './approval-broker';

export interface Conversation {
  adapter: ChannelAdapter;
  thread: ThreadRef;
  isDM: boolean;
  route: ResolvedRoute;
}

export interface RunningTask {
  taskId: string;
  abort: AbortController;
  /** `platform:user_id` of who started it. */
  requester: string;
  /** Epoch ms the Task started (the dashboard's live view). */
  startedAt: number;
  done: Promise<void>;
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
