/**
 * The admin HTTP API: `createAdminApp` + `listenAdmin`, the `AdminRuntime` surface the runtime implements,
 * `GatewayMetrics` (the runtime records into it), and `ensureAdminToken` for start-up.
 */
export { createAdminApp, JSON_BODY_LIMIT } from './app';
export { listenAdmin, type AdminListener } from './listen';
export { GatewayMetrics, type GatewayMetricsOptions, type CallOutcome, type ApprovalVia } from './metrics';
export { ensureAdminToken, generateAdminToken, type AdminTokenSource, type TextOut } from './token';
export { requireAdminToken, isAdminToken, bearerToken } from './auth';
export { decidePairingCode, normalizePairingCode, type PairingOutcome } from './pairing';
export { isReady } from './routes/health';
export { ApiError } from './errors';
export { ADMIN_ACTOR, type AdminRuntime, type AdminDeps, type AdapterStatus, type AdapterState, type RuntimeHealth, type DecideApprovalResult } from './types';
