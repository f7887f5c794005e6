/**
 * The dashboard's session cookie: its name, reading it from a `Cookie` header, and the `Set-Cookie` values
 * that set it (HttpOnly so page scripts never see it, SameSite=Strict so other sites' requests never carry
 * it, Path=/ and Max-Age matching the session's expiry; Secure when the request came over https) and clear it.
 */
export const SESSION_COOKIE = 'pg_session';

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

export function sessionCookie(id: string, maxAgeMs: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
