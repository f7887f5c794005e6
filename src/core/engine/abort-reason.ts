/**
 * The `abort` event's reason for a run the host interrupted (engine.md §2.5): the host's own sentence
 * when it aborted with a non-blank string reason (e.g. "gateway shutting down", which PenguinHarness
 * renders verbatim), else the spec's "aborted by user".
 */
export function userAbortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return typeof r === 'string' && r.trim() !== '' ? r : 'aborted by user';
}
