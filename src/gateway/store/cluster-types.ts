/**
 * What the store keeps for several gateway instances on one database (gateway.md §12): the live instances
 * and their heartbeats, which instance owns each conversation, and the mailbox that carries a conversation's
 * work to its owner. Times are epoch ms of the writing instance's clock (instances keep NTP time).
 */
export interface InstanceRow {
  instance_id: string;
  url: string | null;
  started_at: number;
  heartbeat_at: number;
}

export interface MailRow {
  id: number;
  to_instance: string;
  from_instance: string;
  kind: string;
  body: string;
  created_at: number;
}

export interface Takeover {
  /** The instances whose heartbeat lapsed (or that left rows behind without one), now gone. */
  instances: string[];
  /** Their conversations, now the taker's. */
  keys: string[];
}

export interface ClusterStore {
  /** Registers the instance or renews its heartbeat; `registered` when its row was not there (first start, or peers declared it dead). */
  heartbeat(instanceId: string, url: string | null, startedAt: number, at?: number): Promise<'renewed' | 'registered'>;
  listInstances(): Promise<InstanceRow[]>;
  /** A clean stop: the instance row and its conversations go, so nobody needs to take them over. */
  leaveCluster(instanceId: string): Promise<void>;
  /** The conversation's owner after the call: `instanceId` when nobody owned it or its owner's heartbeat is older than `aliveSince`; else the live owner. */
  claimConversation(key: string, instanceId: string, aliveSince: number, at?: number): Promise<string>;
  conversationOwners(keys: readonly string[]): Promise<Map<string, string>>;
  conversationsOwnedBy(instanceId: string): Promise<string[]>;
  /** Removes instances silent since before `aliveSince` and gives every conversation and letter without a live owner to `instanceId`. */
  takeOverDead(instanceId: string, aliveSince: number, at?: number): Promise<Takeover>;
  postMail(m: Omit<MailRow, 'id' | 'created_at'>, at?: number): Promise<number>;
  /** Removes and returns the instance's letters, oldest first. */
  takeMail(instanceId: string): Promise<MailRow[]>;
}
