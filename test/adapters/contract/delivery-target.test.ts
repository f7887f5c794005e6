/**
 * Delivery targets (`deliver_to` of schedule files): the four documented forms parse and print back
 * unchanged, every malformed part is named in the error, and each target maps to its conversation (when it
 * is one) and to the route scope its conversations are matched by.
 */
import { formatDeliveryTarget, parseDeliveryTarget, targetScope, targetThread, type DeliveryTarget } from '../../../src/adapters/contract/delivery-target';

const target = (s: string): DeliveryTarget => {
  const r = parseDeliveryTarget(s);
  if (!r.ok) throw new Error(r.error);
  return r.target;
};

describe('delivery targets', () => {
  it.each([
    ['slack:T0123ABCD:C0456EFGH', { platform: 'slack', team: 'T0123ABCD', channel: 'C0456EFGH' }],
    ['discord:1123456789012345678:998877665544332211', { platform: 'discord', guild: '1123456789012345678', channel: '998877665544332211' }],
    ['telegram:42', { platform: 'telegram', chat: '42', topic: null }],
    ['telegram:-1001234567890:7', { platform: 'telegram', chat: '-1001234567890', topic: '7' }],
    ['telegram:@release_notes', { platform: 'telegram', chat: '@release_notes', topic: null }],
    ['web:schedule-demo', { platform: 'web', conversation: 'schedule-demo' }],
  ])('parses %s and prints it back', (text, expected) => {
    expect(target(text)).toEqual(expected);
    expect(formatDeliveryTarget(target(text))).toBe(text);
  });

  it.each([
    ['slack:T1', /slack targets are slack:<team>:<channel>, found 1 part after "slack:"/],
    ['slack:T1:c2', /slack channel "c2" is not a Slack id/],
    ['slack:t-1:C2', /slack team "t-1" is not a Slack id/],
    ['slack:T1:C2:171.5', /found 3 parts/],
    ['discord:guild:1', /discord guild "guild" is not a Discord id/],
    ['discord:1:x', /discord channel "x" is not a Discord id/],
    ['telegram:abc', /telegram chat "abc" is not a chat id/],
    ['telegram:42:general', /telegram topic "general" is not a topic id/],
    ['web:a b', /web conversation "a b" is not 1-64 characters/],
    ['matrix:!room:server', /unknown platform "matrix"/],
  ])('refuses %s and says why', (text, why) => {
    const r = parseDeliveryTarget(text);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(why);
  });

  it('gives the conversation of chat and playground targets, none for channels (each delivery opens a thread)', () => {
    expect(targetThread(target('telegram:42'))).toEqual({ platform: 'telegram', chat: '42', topic: null });
    expect(targetThread(target('telegram:-100:9'))).toEqual({ platform: 'telegram', chat: '-100', topic: '9' });
    expect(targetThread(target('web:w1'))).toEqual({ platform: 'web', conversation: 'w1' });
    expect(targetThread(target('slack:T1:C2'))).toBeUndefined();
    expect(targetThread(target('discord:1:2'))).toBeUndefined();
  });

  it('gives the scope routes match on', () => {
    expect(targetScope(target('slack:T1:C2'))).toEqual({ workspace: 'T1', channel: 'C2' });
    expect(targetScope(target('discord:1:2'))).toEqual({ guild: '1', channel: '2' });
    expect(targetScope(target('telegram:-100:9'))).toEqual({ chat: '-100' });
    expect(targetScope(target('web:w1'))).toEqual({});
  });
});
