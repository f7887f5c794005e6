/**
 * Buttons → Discord message components: action rows of at most five buttons (five rows at most), each
 * carrying its pre-encoded action payload as `custom_id` (1–100 characters, checked here: a payload that
 * does not fit is a bug, never truncated), labels cut to 80 characters, styles Primary / Danger /
 * Secondary. No buttons → an empty component list, which is what removes buttons on an edit.
 */
import { PlatformError } from '../contract/errors';
import { DISCORD_LIMITS } from '../contract/limits';
import type { ButtonSpec } from '../contract/surface';

export const BUTTONS_PER_ROW = 5;
export const MAX_ROWS = 5;

/** Discord's component and button style numbers (API v10). */
export const ComponentType = { ActionRow: 1, Button: 2 } as const;
export const ButtonStyle = { Primary: 1, Secondary: 2, Success: 3, Danger: 4 } as const;

export interface ButtonJson {
  type: typeof ComponentType.Button;
  style: number;
  label: string;
  custom_id: string;
}

export interface ActionRowJson {
  type: typeof ComponentType.ActionRow;
  components: ButtonJson[];
}

const STYLE: Record<NonNullable<ButtonSpec['style']>, number> = { primary: ButtonStyle.Primary, danger: ButtonStyle.Danger, secondary: ButtonStyle.Secondary };

function label(text: string): string {
  const chars = [...text];
  const max = DISCORD_LIMITS.buttonLabelChars;
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function button(b: ButtonSpec): ButtonJson {
  const n = b.payload.length;
  if (n < 1 || n > DISCORD_LIMITS.buttonPayloadBytes) {
    throw new PlatformError('discord', { kind: 'surface', reason: 'invalid_request' }, `button "${b.label}": custom_id must be 1-${DISCORD_LIMITS.buttonPayloadBytes} characters, its payload is ${n}`);
  }
  return { type: ComponentType.Button, style: STYLE[b.style ?? 'secondary'], label: label(b.label), custom_id: b.payload };
}

export function actionRows(buttons: readonly ButtonSpec[] | undefined): ActionRowJson[] {
  const list = buttons ?? [];
  if (list.length > BUTTONS_PER_ROW * MAX_ROWS) {
    throw new PlatformError('discord', { kind: 'surface', reason: 'invalid_request' }, `a message holds at most ${BUTTONS_PER_ROW * MAX_ROWS} buttons, not ${list.length}`);
  }
  const rows: ActionRowJson[] = [];
  for (let i = 0; i < list.length; i += BUTTONS_PER_ROW) {
    rows.push({ type: ComponentType.ActionRow, components: list.slice(i, i + BUTTONS_PER_ROW).map(button) });
  }
  return rows;
}
