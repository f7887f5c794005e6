/**
 * Formatters: Slack mrkdwn, Discord Markdown, Telegram HTML (escaping, nesting, code, links, lists, tables,
 * emoji, non-BMP, UTF-16 length, well-formed prefixes), plain fallback, and splitting after rendering.
 */
import fc from 'fast-check';
import { DISCORD_LIMITS, SLACK_LIMITS, TELEGRAM_LIMITS } from '../../../src/adapters/contract/limits';
import { toDiscordMarkdown } from '../../../src/adapters/format/discord';
import { discordFormatter, slackFormatter, splitRendered, telegramFormatter } from '../../../src/adapters/format/formatter';
import { toPlainText } from '../../../src/adapters/format/plain';
import { toSlackMrkdwn } from '../../../src/adapters/format/slack';
import { telegramEntityCount, telegramLength, telegramVisibleText, toTelegramHtml } from '../../../src/adapters/format/telegram';
import { displayWidth } from '../../../src/adapters/format/text-width';
import { openFenceAtEnd } from '../../../src/adapters/render/fences';

const SEED = 20260101;

describe('Slack mrkdwn', () => {
  it.each([
    ['escapes exactly & < >', 'a & b <c> "d"', 'a &amp; b &lt;c&gt; "d"'],
    ['bold, italic, strike', '**b** *i* ~~s~~', '*b* _i_ ~s~'],
    ['nested emphasis', '**bold _it_** and ***both***', '*bold _it_* and _*both*_'],
    ['inline code escapes too', 'run `a<b && c`', 'run `a&lt;b &amp;&amp; c`'],
    ['fences lose the language', '```js\nif (a < b) {}\n```', '```\nif (a &lt; b) {}\n```'],
    ['links as <url|label>', '[the docs](https://x.io/a?b=1&c=2) and https://y.io', '<https://x.io/a?b=1&amp;c=2|the docs> and <https://y.io>'],
    ['unsafe links stay text', '[click](javascript:alert(1))', 'click (javascript:alert(1))'],
    ['headings become bold', '# Title\n\n### Sub *x*', '*Title*\n\n*Sub _x_*'],
    ['lists and nesting', '- a\n  - b\n- [x] c\n\n3. three\n4. four', '• a\n    ◦ b\n• ☑ c\n\n3. three\n4. four'],
    ['quotes', '> quoted **line**', '> quoted *line*'],
    ['emoji and non-BMP pass through', ':tada: 😀 𝔘𝔫𝔦', ':tada: 😀 𝔘𝔫𝔦'],
    ['html is shown, not interpreted', '<script>x</script>', '&lt;script&gt;x&lt;/script&gt;'],
  ])('%s', (_name, md, out) => {
    expect(toSlackMrkdwn(md)).toBe(out);
  });

  it('lays tables out as aligned code blocks', () => {
    expect(toSlackMrkdwn('| Name | Qty |\n|:--|--:|\n| apple | 3 |\n| kiwi 🥝 | 12 |')).toBe('```\nName    │ Qty\n────────┼────\napple   │   3\nkiwi 🥝 │  12\n```');
  });
});

describe('Discord Markdown', () => {
  it.each([
    ['keeps standard emphasis', '**b** *i* ~~s~~ `c`', '**b** *i* ~~s~~ `c`'],
    ['escapes literal markup characters', 'a \\*star\\* and snake_case and 2 * 3', 'a \\*star\\* and snake\\_case and 2 \\* 3'],
    ['neutralises @everyone and @here', 'hi @everyone and @here, not me@here.com', 'hi @\u200beveryone and @\u200bhere, not me@here.com'],
    ['keeps fences with language', '```py\nprint("x")\n```', '```py\nprint("x")\n```'],
    ['headings up to ###, deeper as bold', '# A\n\n#### D', '# A\n\n**D**'],
    ['masked links and bare links', '[docs](https://x.io/a_(b)) https://y.io', '[docs](https://x.io/a_%28b%29) <https://y.io>'],
    ['lists nest with two spaces', '- a\n  - b', '- a\n  - b'],
    ['escapes line starts that would become markup', 'x\n\\# not a heading\n\\- not a list', 'x\n\\# not a heading\n\\- not a list'],
    ['backticks inside code spans', '``a`b``', '`` a`b ``'],
    ['emoji, non-BMP', '😀 :smile: 𝔘', '😀 :smile: 𝔘'],
  ])('%s', (_name, md, out) => {
    expect(toDiscordMarkdown(md)).toBe(out);
  });

  it('turns tables into code blocks (Discord has none)', () => {
    expect(toDiscordMarkdown('| a | b |\n|---|---|\n| 1 | 22 |')).toBe('```\na │ b\n──┼───\n1 │ 22\n```');
  });
});

describe('Telegram HTML', () => {
  it.each([
    ['escapes & < > outside tags', 'a & b <c>', 'a &amp; b &lt;c&gt;'],
    ['allowed tags for emphasis', '**b** *i* ~~s~~ `c<d>`', '<b>b</b> <i>i</i> <s>s</s> <code>c&lt;d&gt;</code>'],
    ['nested emphasis', '**bold _it_**', '<b>bold <i>it</i></b>'],
    ['pre/code with language class', '```python\nx = 1 < 2\n```', '<pre><code class="language-python">x = 1 &lt; 2</code></pre>'],
    ['pre without language', '```\nplain\n```', '<pre>plain</pre>'],
    ['links with escaped href', '[q](https://x.io/?a=1&b="2")', '<a href="https://x.io/?a=1&amp;b=&quot;2&quot;">q</a>'],
    ['headings bold', '## Title', '<b>Title</b>'],
    ['blockquotes', '> said **this**', '<blockquote>said <b>this</b></blockquote>'],
    ['lists', '1. one\n2. two\n   - sub', '1. one\n2. two\n    ◦ sub'],
    ['entities in source decode once', 'AT&amp;T &lt;3 &#128512;', 'AT&amp;T &lt;3 😀'],
    ['unknown html is text', '<span onclick="x">hi</span>', '&lt;span onclick="x"&gt;hi&lt;/span&gt;'],
  ])('%s', (_name, md, out) => {
    expect(toTelegramHtml(md)).toBe(out);
  });

  it('renders tables as aligned <pre> text with wide characters counted twice', () => {
    expect(toTelegramHtml('| k | v |\n|---|---|\n| 日本 | <1> |')).toBe('<pre>k    │ v\n─────┼────\n日本 │ &lt;1&gt;</pre>');
    expect(displayWidth('日本😀a')).toBe(7);
  });

  it('measures length as Telegram does: UTF-16 units of the visible text', () => {
    const html = toTelegramHtml('**😀** & [𝔘](https://x.io)');
    expect(telegramVisibleText(html)).toBe('😀 & 𝔘');
    expect(telegramLength(html)).toBe(7);
    expect([...'😀 & 𝔘'].length).toBe(5);
    expect(telegramEntityCount(toTelegramHtml('**a** `b` ```js\nc\n```'))).toBe(3);
  });

  it('is well-formed, with allowed tags only, for every prefix of a streamed document', () => {
    const doc = '# Plan\n\nFirst **bold _nested_ text** with `code <x>` & a [link](https://e.com/?a=1&b=2).\n\n```ts\nif (a < b) { return "&"; }\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote ~~old~~\n\n- one\n- two 😀\n';
    const allowed = new Set(['b', 'i', 's', 'code', 'pre', 'a', 'blockquote']);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: doc.length }), (n) => {
        const html = toTelegramHtml(doc.slice(0, n));
        const stack: string[] = [];
        for (const m of html.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
          expect(allowed.has(m[2])).toBe(true);
          if (m[1]) expect(stack.pop()).toBe(m[2]);
          else stack.push(m[2]);
        }
        expect(stack).toEqual([]);
        // no bare & or < outside tags
        expect(html.replace(/<[^>]*>/g, '')).not.toMatch(/&(?!amp;|lt;|gt;|quot;)|</);
      }),
      { seed: SEED },
    );
  });
});

describe('plain text fallback', () => {
  it('drops markup but keeps text, links and code', () => {
    expect(toPlainText('**b** [l](https://x.io) `c`\n\n```\ncode\n```')).toBe('b l (https://x.io) c\n\ncode');
  });
});

describe('splitting after rendering', () => {
  const longDoc = Array.from({ length: 40 }, (_, i) =>
    i % 4 === 3 ? '```js\n' + Array.from({ length: 25 }, (_, k) => `call(${i}, ${k}); // <&> 😀`).join('\n') + '\n```' : `Paragraph ${i}: **bold** text with [a link](https://example.com/${i}) and ü, 😀, 𝔘.`,
  ).join('\n\n');

  it.each([
    ['slack', slackFormatter, SLACK_LIMITS.splitTarget],
    ['discord', discordFormatter, DISCORD_LIMITS.splitTarget],
    ['telegram', telegramFormatter, TELEGRAM_LIMITS.splitTarget],
  ] as const)('%s: every part fits once rendered and code fences are closed and reopened', (_n, f, limit) => {
    const parts = splitRendered(longDoc, f, limit);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(f.length(p.rendered)).toBeLessThanOrEqual(limit);
      expect(openFenceAtEnd(p.markdown)).toBeNull();
      expect(p.rendered).toBe(f.render(p.markdown));
    }
    expect(parts.some((p) => p.markdown.startsWith('```js\n'))).toBe(true);
  });

  it('telegram: honours the UTF-16 limit with astral characters and the entity cap', () => {
    const emoji = '😀'.repeat(3000);
    const parts = splitRendered(emoji, telegramFormatter, TELEGRAM_LIMITS.splitTarget);
    expect(parts.map((p) => telegramLength(p.rendered))).toEqual([4000, 2000]);
    expect(parts.map((p) => p.markdown).join('')).toBe(emoji);
    const manyEntities = Array.from({ length: 300 }, (_, i) => `**b${i}**`).join(' ');
    const capped = splitRendered(manyEntities, telegramFormatter, TELEGRAM_LIMITS.splitTarget);
    expect(capped.length).toBeGreaterThanOrEqual(3);
    for (const p of capped) expect(telegramEntityCount(p.rendered)).toBeLessThanOrEqual(100);
  });
});
