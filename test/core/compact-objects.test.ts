/**
 * What a session keeps stays in V8's compact object form: message payloads built with optional fields
 * left out, and objects with a lazily read property (`defineLazy`, `withLazy`, `withHeldPrompt`), keep
 * fast properties and share one hidden class per shape, while JSON and spreads still see every value.
 * Checked in a fresh node process with V8's natives syntax, on the built modules.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { assertGatewayBuilt } from '../e2e/gateway-process';

const dist = (p: string) => JSON.stringify(resolve(__dirname, '../../dist/src/core', p));

const SCRIPT = `
const b = require(${dist('omnimessage/builders.js')});
const { defineLazy, withLazy } = require(${dist('lazy-property.js')});
const { PromptShare, withHeldPrompt } = require(${dist('agent/prompt-share.js')});
const fast = (o) => %HasFastProperties(o);
const same = (x, y) => %HaveSameMap(x, y);
const out = {};
const t1 = b.assistantText('one', { stop_reason: 'end_turn' }).payload, t2 = b.assistantText('two', { stop_reason: 'end_turn' }).payload;
out.text = { fast: fast(t1), same: same(t1, t2), json: JSON.stringify(t1) };
const l1 = defineLazy({ a: 1, b: 2 }, 'p', () => 'x'), l2 = defineLazy({ a: 3, b: 4 }, 'p', () => 'y');
out.lazy = { fast: fast(l1), same: same(l1, l2), json: JSON.stringify(l2), spread: { ...l1 } };
const w1 = withLazy({ a: 1, p: 'stored', c: 3 }, 'p', () => 'read'), w2 = withLazy({ a: 5, p: 'stored', c: 6 }, 'p', () => 'other');
out.withLazy = { fast: fast(w1), same: same(w1, w2), json: JSON.stringify(w1) };
const share = new PromptShare();
const meta = (id) => b.sessionMeta({ session_id: id, provider: 'p', model_id: 'm', model_context_window: 1000, system_prompt: 'prompt of ' + id, agent_state: '/a', workspace: '/w' });
const m1 = withHeldPrompt(meta('s1'), share.hold('prompt of s1')), m2 = withHeldPrompt(meta('s2'), share.hold('prompt of s2'));
out.meta = { fast: fast(m1.payload), same: same(m1.payload, m2.payload), prompt: m2.payload.system_prompt, keys: Object.keys(m1.payload) };
process.stdout.write(JSON.stringify(out));
`;

beforeAll(() => assertGatewayBuilt());

it('keeps payloads and lazily read objects fast, one hidden class per shape, their values visible', () => {
  const r = JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '-e', SCRIPT], { encoding: 'utf8' }));
  expect(r.text).toEqual({ fast: true, same: true, json: '{"type":"text","role":"assistant","text":"one","stop_reason":"end_turn"}' });
  expect(r.lazy).toEqual({ fast: true, same: true, json: '{"a":3,"b":4,"p":"y"}', spread: { a: 1, b: 2, p: 'x' } });
  expect(r.withLazy).toEqual({ fast: true, same: true, json: '{"a":1,"p":"read","c":3}' });
  expect(r.meta).toEqual({ fast: true, same: true, prompt: 'prompt of s2', keys: ['session_id', 'provider', 'model_id', 'model_context_window', 'system_prompt', 'agent_state', 'workspace'] });
});
