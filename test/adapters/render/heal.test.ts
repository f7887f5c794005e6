/**
 * Healing: closes open emphasis, code spans and fences at the end of live text; adds nothing to balanced text.
 */
import fc from 'fast-check';
import { heal, healSuffix } from '../../../src/adapters/render/heal';
import { openFenceAtEnd } from '../../../src/adapters/render/fences';
import { lex } from '../../../src/adapters/format/markdown-walk';

describe('healing intermediate Markdown', () => {
  it.each([
    ['Here is **impor', 'Here is **impor**'],
    ['a *b', 'a *b*'],
    ['nested **bold _it', 'nested **bold _it_**'],
    ['strike ~~gone', 'strike ~~gone~~'],
    ['call `foo(', 'call `foo(`'],
    ['```js\nconst a = 1;', '```js\nconst a = 1;\n```'],
    ['```\ncode\n', '```\ncode\n```'],
    ['~~~~py\nx ``` y', '~~~~py\nx ``` y\n~~~~'],
  ])('closes what %j leaves open', (input, healed) => {
    expect(heal(input)).toBe(healed);
  });

  it.each([
    'balanced **bold** and *it* and `code`',
    '2 * 3 = 6',
    'snake_case_name',
    '- list item\n- another',
    '* bullet',
    '```js\nx\n```\n',
    'ends with space **',
    'x ** y',
    '',
  ])('adds nothing to %j', (input) => {
    expect(healSuffix(input)).toBe('');
  });

  it('looks only at the trailing paragraph', () => {
    expect(healSuffix('an *unclosed paragraph\n\nnew **one')).toBe('**');
    expect(healSuffix('```\n*not emphasis\n```\ntext')).toBe('');
  });

  it('never leaves an open fence, for any prefix of a Markdown document', () => {
    const doc = '# T\n\nSome **bold** and `code`.\n\n```ts\nconst x = `a`;\n```\n\n- item *one*\n- item ~~two~~\n\n~~~\nraw\n~~~\nend';
    fc.assert(
      fc.property(fc.integer({ min: 0, max: doc.length }), (n) => {
        const healed = heal(doc.slice(0, n));
        expect(openFenceAtEnd(healed)).toBeNull();
        expect(() => lex(healed)).not.toThrow();
      }),
      { seed: 17 },
    );
  });
});
