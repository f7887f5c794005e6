/**
 * AdapterBinding: one platform's outer shape for the gateway: its ChannelAdapter plus, where the platform
 * calls in over HTTP (Telegram webhook, Slack events), the routes to mount on the gateway's listener. Each
 * platform folder exports `create<Name>Binding(section, deps)`, taking its config section as data.
 */
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { ChannelAdapter } from './adapter';
import type { Clock } from './clock';
import type { LeadershipFor } from './leadership';

export interface AdapterBinding {
  adapter: ChannelAdapter;
  /** Mounted before the admin API; the adapter authenticates its own requests. */
  routes?: (app: Express) => void;
}

/** What every binding factory may be given by the gateway. */
export interface BindingDeps {
  logger?: Logger;
  clock?: Clock;
  /** Several instances on one database: who runs a once-per-bot receiver (see leadership.ts). */
  leadership?: LeadershipFor;
  /** With `leadership`: how many instances are live, this one included (to take a fair share of receivers). */
  liveInstances?: () => number;
}

/** The live-reply pacing of one platform, from the gateway config (one source for every adapter). */
export interface StreamingSettings {
  dm_edit_interval_ms: number;
  group_edit_interval_ms: number;
  /** 0 = "typing…" is shown once and never renewed. */
  typing_renew_ms: number;
}
