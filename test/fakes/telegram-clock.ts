/**
 * The hand-driven clock for tests of the fake Telegram server (the shared `ManualClock`): time moves
 * only when the test calls `advance`, so flood-control windows, draft lifetimes and callback answer
 * windows are deterministic.
 */
export { ManualClock } from './server-clock';
