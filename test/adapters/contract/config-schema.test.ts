/**
 * The adapters' shared config pieces: every platform names a bad URL, a bad pacing value and a bad
 * credential by field, in one Error per config, and never repeats the value it refused (it may be a secret).
 */
import { parseDiscordConfig } from '../../../src/adapters/discord/config';
import { parseSlackConfig } from '../../../src/adapters/slack/config';
import { parseTelegramConfig } from '../../../src/adapters/telegram/config';

const badStreaming = { dm_edit_interval_ms: -1, group_edit_interval_ms: 1.5, typing_renew_ms: 'soon' } as never;

describe('adapter config schemas', () => {
  it('Slack: URL, pacing and token named by field, the token never echoed', () => {
    const secret = 'not-a-token-s3cr3t';
    const parse = () => parseSlackConfig({ botToken: secret, mode: 'http', signingSecret: 's', apiUrl: 'ftp://slack.example/api', threadFollowUp: true, nativeStreaming: false, socketSilenceMs: -5, streaming: badStreaming });
    expect(parse).toThrow(/^invalid Slack adapter config: botToken: botToken must be a bot token/);
    expect(parse).toThrow(/apiUrl: apiUrl must be an http\(s\) URL/);
    expect(parse).toThrow(/socketSilenceMs: socketSilenceMs must not be negative/);
    expect(parse).toThrow(/streaming\.dm_edit_interval_ms: streaming\.dm_edit_interval_ms must not be negative/);
    expect(parse).toThrow(/streaming\.typing_renew_ms: streaming\.typing_renew_ms must be a number of milliseconds/);
    expect(parse).not.toThrow(new RegExp(secret));
  });

  it('Telegram: the API root and pacing named by field', () => {
    const parse = () => parseTelegramConfig({ botToken: '123:abc', apiRoot: 'not a url', mode: 'polling', draftStreaming: true, streaming: badStreaming });
    expect(parse).toThrow(/^invalid Telegram adapter config: apiRoot: apiRoot must be an http\(s\) URL; streaming\.dm_edit_interval_ms: /);
  });

  it('Discord: valid pacing passes, the REST root loses its trailing slash', () => {
    const streaming = { dm_edit_interval_ms: 1000, group_edit_interval_ms: 3000, typing_renew_ms: 8000 };
    const c = parseDiscordConfig({ botToken: 'abc.def.ghi', apiUrl: 'http://127.0.0.1:9/api//', guildIds: [], messageContent: false, streaming });
    expect(c.apiUrl).toBe('http://127.0.0.1:9/api');
    expect(c.streaming).toEqual(streaming);
    expect(() => parseDiscordConfig({ botToken: 'abc.def', apiUrl: 'ws://x', guildIds: [], messageContent: false })).toThrow(/^invalid Discord adapter config: apiUrl: apiUrl must be an http\(s\) URL$/);
  });
});
