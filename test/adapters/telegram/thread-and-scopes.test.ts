/**
 * Telegram conversations as ThreadRefs (the shared binding-key contract plus the chat_id /
 * message_thread_id mapping), the rate scopes each call draws from, and Markdown measured as Telegram
 * counts it after HTML conversion (UTF-16, entity cap).
 */
import { telegramText, measureTelegram } from '../../../src/adapters/telegram/format';
import { TELEGRAM_RATES, telegramRateScopes } from '../../../src/adapters/telegram/rate';
import { isPrivateChat, telegramTarget, telegramThread, threadOfTarget, type TelegramTarget } from '../../../src/adapters/telegram/thread';
import { describeThreadRefContract } from '../helpers/thread-ref-contract';

describeThreadRefContract<TelegramTarget>('telegram', {
  platform: 'telegram',
  examples: [telegramThread(42, null), telegramThread(-1001234567890, null), telegramThread(-1001234567890, 31), telegramThread('@public_channel'), telegramThread(-555, 1)],
  toNative: telegramTarget,
  fromNative: threadOfTarget,
});

describe('Telegram targets', () => {
  it('sends numeric chat ids as numbers, topics as message_thread_id, names as strings', () => {
    expect(telegramTarget(telegramThread(-1001234567890, 31))).toEqual({ chatId: -1001234567890, threadId: 31 });
    expect(telegramTarget(telegramThread(42))).toEqual({ chatId: 42 });
    expect(telegramTarget(telegramThread('@public_channel'))).toEqual({ chatId: '@public_channel' });
    expect(telegramTarget({ platform: 'telegram', chat: '007', topic: null })).toEqual({ chatId: '007' });
  });

  it('refuses other platforms and non-numeric topics', () => {
    expect(() => telegramTarget({ platform: 'slack', team: 'T', channel: 'C', threadTs: '1' })).toThrow('the Telegram adapter cannot address a slack conversation');
    expect(() => telegramTarget({ platform: 'telegram', chat: '1', topic: 'general' })).toThrow('Telegram topic id "general" is not a number');
  });

  it('tells private chats from groups by the id sign', () => {
    expect(isPrivateChat(telegramThread(42))).toBe(true);
    expect(isPrivateChat(telegramThread(-100123))).toBe(false);
  });
});

describe('telegramRateScopes', () => {
  it('draws DM sends on the account (10% under Telegram\'s 30/s) and the chat (1/s, no burst)', () => {
    expect(telegramRateScopes('777', telegramThread(42), 'post')).toEqual([
      { key: 'telegram:777:bot', limit: { count: 27, perMs: 1000, burst: 27 }, level: 'account' },
      { key: 'telegram:777:chat:42', limit: { count: 1, perMs: 1000, burst: 1 }, level: 'chat' },
    ]);
  });

  it('adds the group budget of 20/min for group edits, shared across topics', () => {
    const a = telegramRateScopes('777', telegramThread(-100123, 5), 'edit');
    const b = telegramRateScopes('777', telegramThread(-100123, 6), 'edit');
    expect(a).toEqual(b);
    expect(a.map((s) => [s.key, s.level])).toEqual([
      ['telegram:777:bot', 'account'],
      ['telegram:777:group:-100123', 'chat'],
      ['telegram:777:chat:-100123', 'chat'],
    ]);
    expect(a[1].limit).toEqual(TELEGRAM_RATES.group);
  });

  it('keeps typing, reactions and deletes on the account only and paces drafts per chat', () => {
    for (const op of ['typing', 'reaction', 'delete'] as const) expect(telegramRateScopes('1', telegramThread(-5), op).map((s) => s.key)).toEqual(['telegram:1:bot']);
    expect(telegramRateScopes('1', telegramThread(9), 'draft').map((s) => s.key)).toEqual(['telegram:1:bot', 'telegram:1:draft:9']);
  });
});

describe('Telegram text', () => {
  it('renders Markdown as HTML, or sends the Markdown unformatted when plain', () => {
    expect(telegramText({ text: '**bold** & <x>', plain: false })).toEqual({ text: '<b>bold</b> &amp; &lt;x&gt;', parse_mode: 'HTML' });
    expect(telegramText({ text: '**bold** & <x>', plain: true })).toEqual({ text: '**bold** & <x>' });
    expect(telegramText({ text: '  ', plain: true })).toEqual({ text: '…' });
  });

  it('measures rendered UTF-16 length, not Markdown length', () => {
    expect(measureTelegram('**bold** [link](https://example.com/very/long/path)')).toBe('bold link'.length);
    expect(measureTelegram('😀')).toBe(2);
  });

  it('reports text with more than 100 entities as over the limit, so the writer splits it', () => {
    const many = Array.from({ length: 101 }, (_, i) => `**b${i}**`).join(' ');
    expect(measureTelegram(many)).toBeGreaterThan(4096);
    const fine = Array.from({ length: 100 }, (_, i) => `**b${i}**`).join(' ');
    expect(measureTelegram(fine)).toBeLessThan(4096);
  });
});
