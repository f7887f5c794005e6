/**
 * Jest global setup: makes this run's directory for the shared test PostgreSQL server (started only if a
 * test file needs it, see test/helpers/pg-server.ts), after stopping servers that dead runs left behind.
 */
import { beginRun, RUN_ENV, sweepStaleRuns } from './helpers/pg-server';

export default async function globalSetup(): Promise<void> {
  await sweepStaleRuns();
  process.env[RUN_ENV] = beginRun();
}
