/**
 * The fake Telegram server's markup parsing: HTML and MarkdownV2 produce Telegram's visible text,
 * UTF-16 entity offsets and Telegram's error wording (UTF-8 byte offsets); limits and raw entities.
 */
import { TgApiError } from '../fakes/telegram-errors';
import { formatMessageText, formatText } from '../fakes/telegram-format';
import { parseHtml } from '../fakes/telegram-html';
import { parseMarkdownLegacy, parseMarkdownV2 } from '../fakes/telegram-markdown';

function htmlError(src: string): string {
  try {
    parseHtml(src);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(src)} to fail`);
}

function mdError(src: string): string {
  try {
    parseMarkdownV2(src);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(src)} to fail`);
}

describe('HTML parse mode', () => {
  it('strips tags into entities with UTF-16 offsets', () => {
    expect(parseHtml('➡️ ➡️<i>➡️ ➡️</i><b>➡️ ➡️</b>')).toEqual({
      text: '➡️ ➡️➡️ ➡️➡️ ➡️',
      entities: [
        { type: 'italic', offset: 5, length: 5 },
        { type: 'bold', offset: 10, length: 5 },
      ],
    });
    expect(parseHtml('🏟 🏟<i>🏟 &gt;<b aba   =   caba>&lt🏟</b></i>')).toEqual({
      text: '🏟 🏟🏟 ><🏟',
      entities: [
        { type: 'italic', offset: 5, length: 7 },
        { type: 'bold', offset: 9, length: 3 },
      ],
    });
  });

  it('decodes only the four named references and numeric ones', () => {
    expect(parseHtml('&lt;&gt;&amp;&quot;&laquo;&#65;&#x42;&#12345678;').text).toBe('<>&"&laquo;AB&#12345678;');
  });

  it('maps every supported tag to its entity type', () => {
    const { entities } = parseHtml(
      '<b>1</b><strong>2</strong><i>3</i><em>4</em><u>5</u><ins>6</ins><s>7</s><strike>8</strike><del>9</del>' +
        '<tg-spoiler>a</tg-spoiler><span class="tg-spoiler">b</span><code>c</code><blockquote>d</blockquote>' +
        '<blockquote expandable>e</blockquote><a href="https://example.com/x">f</a><tg-emoji emoji-id="5368324170671202286">g</tg-emoji>',
    );
    expect(entities.map((e) => e.type)).toEqual([
      'bold', 'bold', 'italic', 'italic', 'underline', 'underline', 'strikethrough', 'strikethrough', 'strikethrough',
      'spoiler', 'spoiler', 'code', 'blockquote', 'expandable_blockquote', 'text_link', 'custom_emoji',
    ]);
    expect(entities[14].url).toBe('https://example.com/x');
  });

  it('merges <pre><code class="language-x"> into one pre entity with a language', () => {
    expect(parseHtml('<pre><code class="language-ts">let a = 1;</code></pre>').entities).toEqual([
      { type: 'pre', offset: 0, length: 10, language: 'ts' },
    ]);
    expect(parseHtml('<pre>x</pre>').entities).toEqual([{ type: 'pre', offset: 0, length: 1 }]);
  });

  it('normalises links the way Telegram does and drops ones that are not links', () => {
    expect(parseHtml('<a href=telegram.org>x</a>').entities[0].url).toBe('http://telegram.org/');
    expect(parseHtml('<a href="as">x</a>').entities).toEqual([]);
    expect(parseHtml('<a>telegram.org</a>').entities[0]).toEqual({ type: 'text_link', offset: 0, length: 12, url: 'http://telegram.org/' });
  });

  it('drops empty entities', () => {
    expect(parseHtml('a<b></b>c')).toEqual({ text: 'ac', entities: [] });
  });

  it.each([
    ['🏟 🏟&lt;<abacaba', 'Unclosed start tag at byte offset 13'],
    ['🏟 🏟&lt;<abac aba>', 'Unsupported start tag "abac" at byte offset 13'],
    ['a < b', 'Unsupported start tag "" at byte offset 2'],
    ['<br>', 'Unsupported start tag "br" at byte offset 0'],
    ['🏟 🏟&lt;<i   =aba>', 'Empty attribute name in the tag "i" at byte offset 13'],
    ['🏟 🏟&lt;<i    aba>', 'Expected equal sign in declaration of an attribute of the tag "i" at byte offset 13'],
    ['🏟 🏟&lt;<i    aba  =  ', 'Unclosed start tag "i" at byte offset 13'],
    ['🏟 🏟&lt;<i    aba  =  190azAz-.,', 'Unexpected end of name token at byte offset 27'],
    ['🏟 🏟&lt;</', 'Unexpected end tag at byte offset 13'],
    ['🏟 🏟&lt;<i>a</i   ', 'Unclosed end tag at byte offset 17'],
    ['🏟 🏟&lt;<i>a</em   >', 'Unmatched end tag at byte offset 17, expected "</i>", found "</em>"'],
    ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
    ['<b>bold', `Can't find end tag corresponding to start tag "b"`],
    ['<b><i>x</i>', `Can't find end tag corresponding to start tag "b"`],
  ])('rejects %j', (src, message) => {
    expect(htmlError(src)).toBe(message);
  });

  it('accepts </> as a closing tag for whatever is open', () => {
    expect(parseHtml('<i>a</>')).toEqual({ text: 'a', entities: [{ type: 'italic', offset: 0, length: 1 }] });
  });
});

describe('MarkdownV2 parse mode', () => {
  it('parses nested entities and escapes', () => {
    expect(parseMarkdownV2('🏟 🏟_🏟 __🏟___')).toEqual({
      text: '🏟 🏟🏟 🏟',
      entities: [
        { type: 'italic', offset: 5, length: 5 },
        { type: 'underline', offset: 8, length: 2 },
      ],
    });
    expect(parseMarkdownV2('`_* *_`__*` `*__').entities).toEqual([
      { type: 'code', offset: 0, length: 5 },
      { type: 'code', offset: 5, length: 1 },
      { type: 'bold', offset: 5, length: 1 },
      { type: 'underline', offset: 5, length: 1 },
    ]);
    expect(parseMarkdownV2('1\\.5 \\- ok\\!').text).toBe('1.5 - ok!');
  });

  it('reads pre blocks with a language, links, spoilers and block quotes', () => {
    expect(parseMarkdownV2('```python\nprint(1)\n```')).toEqual({
      text: 'print(1)\n',
      entities: [{ type: 'pre', offset: 0, length: 9, language: 'python' }],
    });
    expect(parseMarkdownV2('[site](https://example.com/a\\)b)').entities).toEqual([
      { type: 'text_link', offset: 0, length: 4, url: 'https://example.com/a)b' },
    ]);
    expect(parseMarkdownV2('||x||').entities).toEqual([{ type: 'spoiler', offset: 0, length: 1 }]);
    expect(parseMarkdownV2('>quoted\n>more\nplain')).toEqual({
      text: 'quoted\nmore\nplain',
      entities: [{ type: 'blockquote', offset: 0, length: 11 }],
    });
  });

  it.each([
    ['Hello.', `Character '.' is reserved and must be escaped with the preceding '\\'`],
    ['a-b', `Character '-' is reserved and must be escaped with the preceding '\\'`],
    ['🏟 🏟_abacaba', "Can't find end of Italic entity at byte offset 9"],
    ['🏟 🏟_abac * asd ', "Can't find end of Bold entity at byte offset 15"],
    ['🏟 🏟`', "Can't find end of Code entity at byte offset 9"],
    ['🏟 🏟```a', "Can't find end of Pre entity at byte offset 9"],
    ['🏟 🏟```a ', "Can't find end of PreCode entity at byte offset 9"],
    ['🏟 🏟__', "Can't find end of Underline entity at byte offset 9"],
    ['[telegram\\.org](asd', "Can't find end of a URL at byte offset 16"],
  ])('rejects %j', (src, message) => {
    expect(mdError(src)).toBe(message);
  });
});

describe('legacy Markdown parse mode', () => {
  it('parses the four simple entities and links', () => {
    expect(parseMarkdownLegacy('*b* _i_ `c` [l](https://example.com)')).toEqual({
      text: 'b i c l',
      entities: [
        { type: 'bold', offset: 0, length: 1 },
        { type: 'italic', offset: 2, length: 1 },
        { type: 'code', offset: 4, length: 1 },
        { type: 'text_link', offset: 6, length: 1, url: 'https://example.com/' },
      ],
    });
  });

  it('reports an unclosed entity by byte offset', () => {
    expect(() => parseMarkdownLegacy('ab *c')).toThrow("Can't find end of the entity starting at byte offset 3");
  });
});

describe('text limits and explicit entities', () => {
  const apiError = (fn: () => unknown): TgApiError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof TgApiError) return err;
      throw err;
    }
    throw new Error('expected a TgApiError');
  };

  it('measures length in UTF-16 units after parsing', () => {
    expect(formatMessageText(`<b>${'x'.repeat(4096)}</b>`, 'HTML', undefined).text).toHaveLength(4096);
    expect(apiError(() => formatMessageText('😀'.repeat(2049), undefined, undefined)).description).toBe('Bad Request: message is too long');
    expect(formatMessageText('😀'.repeat(2048), undefined, undefined).text).toHaveLength(4096);
  });

  it('rejects empty text and unknown parse modes', () => {
    expect(apiError(() => formatMessageText('', undefined, undefined)).description).toBe('Bad Request: message text is empty');
    expect(apiError(() => formatMessageText('<b> </b>', 'HTML', undefined)).description).toBe('Bad Request: message text is empty');
    expect(apiError(() => formatText('x', 'BBCode', undefined)).description).toBe('Bad Request: unsupported parse_mode');
  });

  it('wraps markup failures as 400 can\'t parse entities', () => {
    const e = apiError(() => formatText('<b>x', 'HTML', undefined));
    expect(e.code).toBe(400);
    expect(e.description).toBe(`Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`);
  });

  it('prefers explicit entities, clipped to the text', () => {
    expect(formatText('<b>x</b>', 'HTML', [{ type: 'bold', offset: 1, length: 50 }, { type: 'nope', offset: 0, length: 1 }])).toEqual({
      text: '<b>x</b>',
      entities: [{ type: 'bold', offset: 1, length: 7 }],
    });
  });
});
