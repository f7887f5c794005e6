/**
 * Doctor's database check on PostgreSQL (PENGUIN_DATABASE_URL), read-only: connects, reports the server's
 * version and the gateway schema's (or that start creates it and fills it from the files), and counts the
 * stored admin tokens. A failed connection says why, with what to fix for the usual causes. The URL is
 * shown without its password, and the password is scrubbed from whatever the server or driver said.
 */
import pg from 'pg';
import type { GatewayConfig } from '../../config';
import { currentPgSchemaVersion, databaseUrlPassword, MIGRATIONS, redactDatabaseUrl } from '../../store';
import { adminTokenCheck } from './local';
import type { CheckResult } from './types';

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

function fixFor(e: unknown, where: string): string {
  const code = String((e as { code?: unknown }).code ?? '');
  const db = (() => {
    try {
      return new URL(where).pathname.slice(1) || 'the database';
    } catch {
      return 'the database';
    }
  })();
  if (UNREACHABLE.has(code) || /timeout/i.test((e as Error).message)) {
    return 'check the host and port in PENGUIN_DATABASE_URL, that PostgreSQL is running there and that it accepts TCP connections from this machine';
  }
  if (code === '28P01' || code === '28000') return 'check the user and password in PENGUIN_DATABASE_URL, and that the server\'s pg_hba.conf lets that user in from here';
  if (code === '3D000') return `create the database first (\`createdb ${db}\`, or CREATE DATABASE ${db}), or fix its name in PENGUIN_DATABASE_URL`;
  if (code === '42501') return 'grant the user in PENGUIN_DATABASE_URL the rights to create tables in that database (or its schema)';
  return 'check PENGUIN_DATABASE_URL and the PostgreSQL server it names';
}

export async function checkPostgres(config: Pick<GatewayConfig, 'database_url' | 'admin_token'>, timeoutMs: number): Promise<CheckResult[]> {
  const url = config.database_url!;
  const where = redactDatabaseUrl(url);
  const latest = MIGRATIONS.length;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'penguin-gateway doctor' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const server = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
    const version = await currentPgSchemaVersion(client);
    const stored = version >= 1 ? Number((await client.query<{ n: string }>('SELECT COUNT(*) AS n FROM admin_tokens')).rows[0].n) : 0;
    const at = `${where} (PostgreSQL ${server})`;
    let result: CheckResult;
    if (version === 0) {
      result = { name: 'database', status: 'ok', detail: `${at} has no gateway schema yet; start creates it (schema version ${latest}) and fills it from the traces and the journal, if any` };
    } else if (version > latest) {
      result = { name: 'database', status: 'fail', detail: `${at} is at schema version ${version}, newer than this release knows (${latest})`, fix: 'run the release that wrote it (or newer), or restore a backup taken before the upgrade' };
    } else if (version < latest) {
      result = { name: 'database', status: 'ok', detail: `${at} is at schema version ${version}; start (or \`penguin-gateway migrate\`) brings it to ${latest}` };
    } else {
      result = { name: 'database', status: 'ok', detail: `${at} connects, schema version ${version} (current)` };
    }
    return [result, adminTokenCheck(config, stored)];
  } catch (e) {
    const password = databaseUrlPassword(url);
    const said = String((e as Error).message || (e as { code?: unknown }).code || e);
    const message = password ? said.split(password).join('***') : said;
    return [{ name: 'database', status: 'fail', detail: `cannot connect to ${where}: ${message}`, fix: fixFor(e, where) }, adminTokenCheck(config, undefined)];
  } finally {
    await client.end().catch(() => undefined);
  }
}
