/**
 * Binding keys: the documented formats, escaping, clear errors, and the reusable contract per platform.
 */
import { bindingKey, escapeComponent, parseBindingKey, tryParseBindingKey, type ThreadRef } from '../../../src/adapters/contract/thread-ref';
import { describeThreadRefContract } from '../helpers/thread-ref-contract';

describeThreadRefContract('slack codec', {
  platform: 'slack',
  examples: [{ platform: 'slack', team: 'T024BE7LD', channel: 'C01ABCDEF', threadTs: '1712345678.123456' }],
});
describeThreadRefContract('discord codec', {
  platform: 'discord',
  examples: [
    { platform: 'discord', guild: '81384788765712384', channel: '81384788765712385', thread: '1100000000000000001' },
    { platform: 'discord', guild: null, channel: '999', thread: null },
  ],
});
describeThreadRefContract('telegram codec', {
  platform: 'telegram',
  examples: [
    { platform: 'telegram', chat: '-1001234567890', topic: '42' },
    { platform: 'telegram', chat: '123456789', topic: null },
  ],
});

describe('binding keys', () => {
  it('use the documented formats with sentinels for DMs and missing threads/topics', () => {
    expect(bindingKey({ platform: 'slack', team: 'T1', channel: 'C2', threadTs: '171.5' })).toBe('slack:T1:C2:171.5');
    expect(bindingKey({ platform: 'discord', guild: null, channel: 'c', thread: null })).toBe('discord:dm:c:-');
    expect(bindingKey({ platform: 'discord', guild: 'g', channel: 'c', thread: 't' })).toBe('discord:g:c:t');
    expect(bindingKey({ platform: 'telegram', chat: '-100', topic: null })).toBe('telegram:-100:-');
  });

  it('escapes ids that would read as separators or sentinels', () => {
    expect(bindingKey({ platform: 'discord', guild: 'dm', channel: 'a:b', thread: '-' })).toBe('discord:%64m:a%3Ab:%2D');
    expect(parseBindingKey('discord:%64m:a%3Ab:%2D')).toEqual({ platform: 'discord', guild: 'dm', channel: 'a:b', thread: '-' });
    expect(escapeComponent('50%')).toBe('50%25');
    expect(escapeComponent('é')).toBe('%C3%A9');
  });

  it('rejects malformed keys with a reason', () => {
    expect(() => parseBindingKey('slack:T1:C2')).toThrow(/slack keys have 4 parts/);
    expect(() => parseBindingKey('irc:x:y')).toThrow(/unknown platform "irc"/);
    expect(() => parseBindingKey('telegram::-')).toThrow(/chat is empty/);
    expect(() => parseBindingKey('telegram:a b:-')).toThrow(/unescaped character/);
    expect(() => parseBindingKey('telegram:%FF:-')).toThrow(/not valid percent-encoded UTF-8/);
    expect(tryParseBindingKey('nope')).toEqual({ ok: false, error: expect.stringContaining('unknown platform') });
  });

  it('rejects invalid refs naming the field', () => {
    expect(() => bindingKey({ platform: 'slack', team: '', channel: 'C', threadTs: '1' })).toThrow(/team: slack team must not be empty/);
    expect(() => bindingKey({ platform: 'telegram', chat: '\ud800', topic: null } as ThreadRef)).toThrow(/lone UTF-16 surrogate/);
  });
});
