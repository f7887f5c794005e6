/**
 * Buttons → Telegram inline keyboard. Every button carries its pre-encoded action payload as
 * `callback_data` (1–64 bytes, checked here: a payload that does not fit is a bug, never truncated);
 * styles map to Bot API 9.4 `style` (primary, danger); rows hold up to three buttons whose labels fit one
 * phone-width line. No buttons → an empty keyboard, which is what removes buttons on an edit.
 */
import type { InlineKeyboardButton, InlineKeyboardMarkup } from 'grammy/types';
import { PlatformError } from '../contract/errors';
import { TELEGRAM_LIMITS } from '../contract/limits';
import type { ButtonSpec } from '../contract/surface';

/** Label characters one row holds before the next button wraps. */
export const ROW_LABEL_CHARS = 24;
export const ROW_MAX_BUTTONS = 3;

function label(text: string): string {
  const chars = [...text];
  const max = TELEGRAM_LIMITS.buttonLabelChars;
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function button(b: ButtonSpec): InlineKeyboardButton.CallbackButton {
  const bytes = Buffer.byteLength(b.payload, 'utf8');
  if (bytes < 1 || bytes > TELEGRAM_LIMITS.buttonPayloadBytes) {
    throw new PlatformError('telegram', { kind: 'surface', reason: 'invalid_request' }, `button "${b.label}": callback_data must be 1-${TELEGRAM_LIMITS.buttonPayloadBytes} bytes, its payload is ${bytes}`);
  }
  const out: InlineKeyboardButton.CallbackButton = { text: label(b.label), callback_data: b.payload };
  if (b.style === 'primary' || b.style === 'danger') out.style = b.style;
  return out;
}

export function inlineKeyboard(buttons: readonly ButtonSpec[] | undefined): InlineKeyboardMarkup {
  const rows: InlineKeyboardButton.CallbackButton[][] = [];
  let row: InlineKeyboardButton.CallbackButton[] = [];
  let used = 0;
  for (const b of buttons ?? []) {
    const btn = button(b);
    const len = [...btn.text].length;
    if (row.length > 0 && (row.length >= ROW_MAX_BUTTONS || used + len > ROW_LABEL_CHARS)) {
      rows.push(row);
      row = [];
      used = 0;
    }
    row.push(btn);
    used += len;
  }
  if (row.length > 0) rows.push(row);
  return { inline_keyboard: rows };
}
