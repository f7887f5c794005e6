/**
 * Schema version 4: `deliveries.shown`, the text (Markdown, without the live status line) a message last
 * showed, so the next start can finalise a reply the previous process left mid-stream: edit it to that text
 * with a note that it was interrupted, and take its Stop button away.
 */
import type { Migration } from './types';

export const deliveryShown: Migration = {
  version: 4,
  name: 'delivery-shown',
  sql: `ALTER TABLE deliveries ADD COLUMN shown TEXT;`,
};
