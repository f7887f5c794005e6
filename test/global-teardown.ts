/** Jest global teardown: stops this run's test PostgreSQL server, if a test file started one. */
import { endRun, RUN_ENV } from './helpers/pg-server';

export default async function globalTeardown(): Promise<void> {
  const dir = process.env[RUN_ENV];
  if (dir) await endRun(dir);
}
