/**
 * Buttons → inline keyboards: an approval card's three buttons become callback buttons whose data fits
 * Telegram's 64 bytes and decodes back to the card's actions, laid out in rows that fit a phone; no
 * buttons → an empty keyboard (which removes buttons on an edit); oversized payloads are refused.
 */
import { decodeActionPayload, encodeActionPayload } from '../../../src/adapters/contract/action-payload';
import { buildApprovalCard } from '../../../src/adapters/contract/approval-card';
import { inlineKeyboard } from '../../../src/adapters/telegram/keyboard';

describe('inlineKeyboard', () => {
  it('turns an approval card into callback buttons of at most 64 bytes that decode to its actions', () => {
    const card = buildApprovalCard({ approvalId: 'A'.repeat(48), toolName: 'exec_command', arguments: JSON.stringify({ cmd: 'rm -rf build', description: 'clean' }) });
    const kb = inlineKeyboard(card.buttons);
    expect(kb.inline_keyboard).toEqual([
      [
        { text: 'Allow', callback_data: `a:${'A'.repeat(48)}:allow`, style: 'primary' },
        { text: 'Deny', callback_data: `a:${'A'.repeat(48)}:deny`, style: 'danger' },
      ],
      [{ text: 'Allow for this session', callback_data: `a:${'A'.repeat(48)}:session` }],
    ]);
    for (const b of kb.inline_keyboard.flat()) {
      const data = (b as { callback_data: string }).callback_data;
      expect(Buffer.byteLength(data, 'utf8')).toBeLessThanOrEqual(64);
      expect(decodeActionPayload(data)).toEqual({ ok: true, action: { kind: 'approval', approvalId: 'A'.repeat(48), verb: expect.any(String) } });
    }
  });

  it('puts a single Stop button on its own row', () => {
    expect(inlineKeyboard([{ label: 'Stop', payload: encodeActionPayload({ kind: 'stop', taskId: 't1' }), style: 'danger' }])).toEqual({
      inline_keyboard: [[{ text: 'Stop', callback_data: 's:t1', style: 'danger' }]],
    });
  });

  it('gives an empty keyboard for absent or empty buttons', () => {
    expect(inlineKeyboard(undefined)).toEqual({ inline_keyboard: [] });
    expect(inlineKeyboard([])).toEqual({ inline_keyboard: [] });
  });

  it('wraps rows at three buttons and shortens over-long labels', () => {
    const many = ['a', 'b', 'c', 'd'].map((l) => ({ label: l, payload: `c:${l}` }));
    expect(inlineKeyboard(many).inline_keyboard.map((r) => r.map((b) => b.text))).toEqual([['a', 'b', 'c'], ['d']]);
    const long = inlineKeyboard([{ label: 'x'.repeat(80), payload: 'c:x' }]).inline_keyboard[0][0].text;
    expect([...long]).toHaveLength(64);
    expect(long.endsWith('…')).toBe(true);
  });

  it('refuses payloads over 64 bytes or empty', () => {
    expect(() => inlineKeyboard([{ label: 'Big', payload: 'é'.repeat(33) }])).toThrow('button "Big": callback_data must be 1-64 bytes, its payload is 66');
    expect(() => inlineKeyboard([{ label: 'Empty', payload: '' }])).toThrow(/its payload is 0/);
  });
});
