/**
 * Unified diff body for approval previews (edit_file old→new, write_file new content): hunks only, 2 lines of
 * context, from the core's bounded jsdiff wrapper (huge or unrelated inputs degrade to "all removed, then all
 * added", still a correct diff). Output is meant to be cut to fit.
 */
import { unifiedHunks } from '../../core/environment/tools/unified-diff';

const CONTEXT = 2;

/** A unified diff body (hunk headers and ±/space lines, no file header) from `before` to `after`. */
export function unifiedDiff(before: string, after: string): string {
  return unifiedHunks(before, after, CONTEXT);
}
