/**
 * The Discord clients, from discord.js's transport packages (no discord.js Client): one @discordjs/rest client
 * for every call, over plainFetch (a network failure thrown as the system error it was), and an
 * @discordjs/ws manager per ShardLink (what its shards share), with only the intents needed (Message Content
 * when configured). Rate limits are the gateway's to schedule: X-RateLimit-* headers feed the RateBook, and a
 * call that would wait on a bucket throws RateLimitError (except interaction callbacks, due in 3 s); no retries.
 */
import { REST, type RESTOptions, type RateLimitData, type ResponseLike } from '@discordjs/rest';
import { WebSocketManager, type SessionInfo } from '@discordjs/ws';
import { plainFetch } from '../../core/http/plain-fetch';
import type { DiscordAdapterConfig } from './config';
import type { RateBook } from './rate';

/** Gateway intents (Discord's bit values): guilds, guild messages, direct messages, message content. */
export const INTENT = { Guilds: 1 << 0, GuildMessages: 1 << 9, DirectMessages: 1 << 12, MessageContent: 1 << 15 } as const;

export function intentsFor(messageContent: boolean): number {
  const base = INTENT.Guilds | INTENT.GuildMessages | INTENT.DirectMessages;
  return messageContent ? base | INTENT.MessageContent : base;
}

/**
 * plainFetch, as fetch, reports a network failure as TypeError('fetch failed'), the system error (its code)
 * as the cause. Read by shape: an upload goes through Node's fetch, whose errors come from Node's own realm,
 * where `instanceof` against another realm's fails.
 */
function networkCause(err: unknown): unknown {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return (err as { name?: unknown } | null)?.name === 'TypeError' && typeof (cause as { code?: unknown } | null)?.code === 'string' ? cause : err;
}

/** Which rate-limited calls throw instead of waiting: everything but interaction acknowledgements. */
export const rejectsOnRateLimit = (d: Pick<RateLimitData, 'route'>): boolean => !d.route.startsWith('/interactions');

function restOptions(config: DiscordAdapterConfig, book: RateBook): Partial<RESTOptions> {
  return {
    api: config.apiUrl,
    retries: 0,
    timeout: 15_000,
    rejectOnRateLimit: rejectsOnRateLimit,
    // Not the package's default over its bundled undici (a second HTTP client in the heap), nor Node's fetch.
    makeRequest: async (url, init) => {
      let res: ResponseLike;
      try {
        res = (await plainFetch(url, init as RequestInit)) as ResponseLike;
      } catch (err) {
        throw networkCause(err);
      }
      book.observe(init.method ?? 'GET', url, (name) => res.headers.get(name));
      return res;
    },
  };
}

/** The REST client every send goes through, independent of any gateway connection (which may come and go). */
export function createRest(config: DiscordAdapterConfig, book: RateBook): REST {
  return new REST(restOptions(config, book)).setToken(config.botToken);
}

/**
 * The gateway manager of a link's `shards` of `shardCount`: it discovers the websocket URL through `rest` and
 * holds what the link's shards share (their options, identify throttle and resume state). Resume state is the
 * manager's own (the package's default is one store per process, which two links of one shard id, one closing
 * and one opening, would share).
 */
export function createGateway(config: DiscordAdapterConfig, rest: REST, shards: number[], shardCount: number): WebSocketManager {
  const sessions = new Map<number, SessionInfo>();
  return new WebSocketManager({
    token: config.botToken,
    intents: intentsFor(config.messageContent),
    rest,
    shardIds: shards,
    shardCount,
    retrieveSessionInfo: (id) => sessions.get(id) ?? null,
    updateSessionInfo: (id, info) => {
      if (info) sessions.set(id, info);
      else sessions.delete(id);
    },
  });
}
