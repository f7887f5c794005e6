/**
 * The discord.js clients the adapter runs on: one REST client for every call, and gateway clients for the
 * shards this instance connects, with only the intents it needs (Message Content only when configured),
 * `Partials.Channel` for DMs and no message cache (the adapter reads raw dispatches). Rate limits are the
 * gateway's to schedule: answers' X-RateLimit-* headers feed the RateBook, and a call that would wait on a
 * bucket throws RateLimitError instead of queueing (except interaction callbacks, due within 3 s); no retries.
 */
import { Client, DefaultRestOptions, GatewayIntentBits, Options, Partials, REST, type RESTOptions, type RateLimitData } from 'discord.js';
import type { DiscordAdapterConfig } from './config';
import type { RateBook } from './rate';

export function intentsFor(messageContent: boolean): GatewayIntentBits[] {
  const base = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];
  return messageContent ? [...base, GatewayIntentBits.MessageContent] : base;
}

/** Which rate-limited calls throw instead of waiting: everything but interaction acknowledgements. */
export const rejectsOnRateLimit = (d: Pick<RateLimitData, 'route'>): boolean => !d.route.startsWith('/interactions');

function restOptions(config: DiscordAdapterConfig, book: RateBook): Partial<RESTOptions> {
  return {
    api: config.apiUrl,
    retries: 0,
    timeout: 15_000,
    rejectOnRateLimit: rejectsOnRateLimit,
    makeRequest: async (url, init) => {
      const res = await DefaultRestOptions.makeRequest(url, init);
      book.observe(init.method ?? 'GET', url, (name) => res.headers.get(name));
      return res;
    },
  };
}

/** The REST client every send goes through, independent of any gateway connection (which may come and go). */
export function createRest(config: DiscordAdapterConfig, book: RateBook): REST {
  return new REST(restOptions(config, book)).setToken(config.botToken);
}

/** A gateway client for `shards` of `shardCount` (discord.js connects exactly those). */
export function createClient(config: DiscordAdapterConfig, book: RateBook, shards: number[], shardCount: number): Client {
  return new Client({
    intents: intentsFor(config.messageContent),
    partials: [Partials.Channel],
    makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    shards,
    shardCount,
    rest: restOptions(config, book),
  });
}
