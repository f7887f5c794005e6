/**
 * Parsed YAML holds its own strings: in a fresh node process running the built modules, a long block scalar
 * parsed and kept leaves neither the file's text (which the parser's slices would hold) nor its rope of
 * per-line pieces in the heap, per a heap snapshot taken after the text is dropped; nor does a skill's
 * metadata keep its SKILL.md. The values themselves are tested with the files that use them.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { assertGatewayBuilt } from '../../e2e/gateway-process';
import { ownStrings } from '../../../src/core/state/parse-text';

const DIST = resolve(__dirname, '../../../dist/src/core/state');

const SCRIPT = `
const v8 = require('node:v8');
const { parseYamlText } = require(${JSON.stringify(`${DIST}/parse-text.js`)});
const { parseSkillMarkdown } = require(${JSON.stringify(`${DIST}/skills.js`)});
// Built at run time, flat, so that no literal of this script holds it and it is one string throughout (it
// is counted before the text is made).
const marker = ['file-text', 'marker', 7 * 1000].join('-');
const snapshot = () => new Promise((done) => {
  const chunks = [];
  const s = v8.getHeapSnapshot();
  s.on('data', (c) => chunks.push(c));
  s.on('end', () => {
    const h = JSON.parse(Buffer.concat(chunks).toString());
    const nf = h.snapshot.meta.node_fields.length, types = h.snapshot.meta.node_types[0];
    let ropes = 0, withMarker = 0;
    for (let i = 0; i < h.nodes.length; i += nf) {
      const t = types[h.nodes[i]];
      if (t === 'concatenated string') ropes++;
      if (/string/.test(t) && h.strings[h.nodes[i + 1]].includes(marker)) withMarker++;
    }
    done({ ropes, withMarker });
  });
});
(async () => {
  const before = await snapshot();
  const lines = Array.from({ length: 3000 }, (_, i) => '  line ' + i + ' of a long text').join('\\n');
  let config = '# ' + marker + '\\nsystem_prompt: |-\\n' + lines + '\\n';
  let skill = '---\\nname: a-skill\\nshort_description: a short description that is sliced\\n---\\n' + marker + '\\n' + lines;
  const parsed = parseYamlText(config, 'system_config.yaml');
  const meta = parseSkillMarkdown('a-skill', skill);
  config = skill = undefined;
  // V8 keeps the last regular expression match's subject, a slice of the text, until the next match.
  /x/.test('x');
  gc();
  const after = await snapshot();
  process.stdout.write(JSON.stringify({ length: parsed.value.system_prompt.length, short: meta.short_description, ropes: after.ropes - before.ropes, withMarker: after.withMarker - before.withMarker }));
})();
`;

beforeAll(() => assertGatewayBuilt());

it('keeps neither the file text nor a rope of pieces behind a parsed block scalar or a skill', () => {
  const r = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '-e', SCRIPT], { encoding: 'utf8' })) as { length: number; short: string; ropes: number; withMarker: number };
  expect(r.length).toBeGreaterThan(3000 * 20);
  expect(r.short).toBe('a short description that is sliced');
  expect(r.withMarker).toBe(0);
  expect(r.ropes).toBeLessThan(100);
});

it('copies the strings of arrays and plain objects in place and leaves other values as they are', () => {
  const date = new Date(0);
  const data = { a: 'text', b: ['x', 1, null, { c: 'y' }], d: date, e: true };
  expect(ownStrings(data)).toBe(data);
  expect(data).toEqual({ a: 'text', b: ['x', 1, null, { c: 'y' }], d: date, e: true });
  expect(data.d).toBe(date);
  expect(ownStrings('alone')).toBe('alone');
});
