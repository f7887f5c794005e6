/**
 * How a PostgreSQL URL (PENGUIN_DATABASE_URL) is shown: with its password, in the userinfo or as a
 * `password=` parameter, replaced by `***`, so logs, doctor and errors can name the database safely.
 * `databaseUrlPassword` gives the password itself, for the redactor that keeps it out of tool output.
 */
const HIDDEN = '***';

export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = HIDDEN;
    if (u.searchParams.has('password')) u.searchParams.set('password', HIDDEN);
    return u.toString();
  } catch {
    return '(a database URL that does not parse)';
  }
}

export function databaseUrlPassword(url: string): string | undefined {
  try {
    const u = new URL(url);
    const p = u.password ? decodeURIComponent(u.password) : u.searchParams.get('password');
    return p || undefined;
  } catch {
    return undefined;
  }
}
