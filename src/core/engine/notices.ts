/**
 * Background notices as model input (engine.md §1.9, §2.8): a `run_in_background` completion becomes one
 * user text with `sender: "harness"`: a `[background_task_done]` block whose header fields are
 * `kind`, `id`, `status`, `detail` (the one-line label, ≤120 chars), then a blank line and the output tail
 * (≤4000 chars, the end kept).
 */
import * as b from '../omnimessage/builders';
import type { BackgroundNotice } from '../interfaces';
import { formatBlock, formatFields } from '../omnimessage/markers';
import type { OmniMessage } from '../omnimessage/types';

export const NOTICE_TAIL_CHARS = 4000;
export const NOTICE_LABEL_CHARS = 120;

export function noticeMessage(n: BackgroundNotice): OmniMessage {
  const label = n.label.replace(/\s+/g, ' ').trim().slice(0, NOTICE_LABEL_CHARS);
  const tail = n.detail.length > NOTICE_TAIL_CHARS ? n.detail.slice(-NOTICE_TAIL_CHARS) : n.detail;
  const head = formatFields({ kind: n.kind, id: n.id, status: n.status, detail: label });
  const body = tail.trim() === '' ? head : `${head}\n\n${tail}`;
  return b.userText(formatBlock('background_task_done', body), 'harness');
}
