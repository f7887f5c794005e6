/**
 * The hand-driven clock for the fake Slack server (the shared `ManualClock`): rate-limit windows,
 * message ts, response_url expiry and assistant status lifetimes move only when a test calls
 * `advance`. Signatures on deliveries always use real time, because the app under test checks them
 * against its own clock.
 */
export { ManualClock } from './server-clock';
