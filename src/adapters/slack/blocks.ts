/**
 * Buttons as Block Kit: an `actions` block of `button` elements whose action_id and value are the encoded
 * action payload (≤64 bytes, unique within a message, so the click handler matches them by prefix).
 * Labels are cut to Slack's 75 characters; styles map to primary / danger (secondary is Slack's default).
 */
import type { ButtonSpec } from '../contract/surface';
import { SLACK_LIMITS } from '../contract/limits';

/** A Block Kit block as sent (the SDK's own types are wider than what we build). */
export type SlackBlock = { type: string } & Record<string, unknown>;

/** Every payload the gateway encodes starts with one of these prefixes (action-payload.ts). */
export const ACTION_ID_PATTERN = /^[asc]:/;

function label(text: string): string {
  const cps = [...text];
  return cps.length <= SLACK_LIMITS.buttonLabelChars ? text : `${cps.slice(0, SLACK_LIMITS.buttonLabelChars - 1).join('')}…`;
}

export function buttonElement(b: ButtonSpec): SlackBlock {
  return {
    type: 'button',
    text: { type: 'plain_text', text: label(b.label), emoji: true },
    action_id: b.payload,
    value: b.payload,
    ...(b.style === 'primary' || b.style === 'danger' ? { style: b.style } : {}),
  };
}

/** The actions block for `buttons`, or undefined when there are none. */
export function actionsBlock(buttons: readonly ButtonSpec[] | undefined): SlackBlock | undefined {
  if (!buttons?.length) return undefined;
  return { type: 'actions', elements: buttons.slice(0, 25).map(buttonElement) };
}
