/**
 * `reply_markup` checks as Telegram applies them: an inline keyboard is an array of button rows, each
 * button has a text and an action field; `callback_data` is 1–64 bytes (else BUTTON_DATA_INVALID), a
 * `url` must be a link (else BUTTON_URL_INVALID). Reply keyboards / removal / force-reply are kept as sent.
 * Also: a key-order-independent comparison used for "message is not modified".
 */
import { tgErrors } from './telegram-errors';
import type { TgInlineButton, TgInlineKeyboard, TgReplyMarkup } from './telegram-types';

const ACTIONS = [
  'url', 'callback_data', 'web_app', 'login_url', 'disabled', 'switch_inline_query', 'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat', 'copy_text', 'callback_game', 'pay',
];

export function isInlineKeyboard(m: unknown): m is TgInlineKeyboard {
  return typeof m === 'object' && m !== null && 'inline_keyboard' in m;
}

function checkButton(raw: unknown): TgInlineButton {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw tgErrors.badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object");
  }
  const b = raw as Record<string, unknown>;
  if (typeof b.text !== 'string') {
    throw tgErrors.badRequest(`can't parse inline keyboard button: Field "text" must be of type String`);
  }
  if (!ACTIONS.some((k) => b[k] !== undefined)) {
    throw tgErrors.badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard");
  }
  if (b.callback_data !== undefined) {
    const size = typeof b.callback_data === 'string' ? Buffer.byteLength(b.callback_data, 'utf8') : 0;
    if (size < 1 || size > 64) throw tgErrors.badRequest('BUTTON_DATA_INVALID');
  }
  if (b.url !== undefined) {
    if (typeof b.url !== 'string' || !/^(https?|tg):\/\/\S+$/i.test(b.url)) throw tgErrors.badRequest('BUTTON_URL_INVALID');
  }
  return { ...b } as TgInlineButton;
}

/**
 * Validates a reply_markup value (already JSON-decoded). `inlineOnly` is for edit methods, which accept
 * only inline keyboards. Returns a private copy, or undefined when absent.
 */
export function checkReplyMarkup(raw: unknown, inlineOnly: boolean): TgReplyMarkup | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw tgErrors.badRequest("can't parse reply keyboard markup JSON object");
  }
  if (isInlineKeyboard(raw)) {
    const rows = raw.inline_keyboard;
    if (!Array.isArray(rows) || rows.some((r) => !Array.isArray(r))) {
      throw tgErrors.badRequest('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    }
    return { inline_keyboard: rows.map((row: unknown[]) => row.map(checkButton)) };
  }
  const m = raw as Record<string, unknown>;
  if (!inlineOnly && (Array.isArray(m.keyboard) || m.remove_keyboard === true || m.force_reply === true)) {
    return JSON.parse(JSON.stringify(m)) as TgReplyMarkup;
  }
  throw tgErrors.badRequest(inlineOnly ? "can't parse inline keyboard markup JSON object" : "can't parse reply keyboard markup JSON object");
}

/** JSON with sorted object keys, so two markups compare equal whatever order the client wrote keys in. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** All buttons of an inline keyboard, row by row. */
export function buttonsOf(markup: TgReplyMarkup | undefined): TgInlineButton[] {
  return isInlineKeyboard(markup) ? markup.inline_keyboard.flat() : [];
}
