/**
 * The dashboard's one way to the admin API: same-origin fetch with the session cookie, the login's CSRF
 * token on every state change, and `{error: {code, message}}` answers turned into an ApiError the pages
 * show. A 401 means the login ended: the page reloads, and the gateway answers the login page.
 */
let csrf = '';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export function setCsrf(token: string): void {
  csrf = token;
}

export async function api<T = unknown>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.status === 401 && path !== '/api/auth/login') {
    location.reload();
    throw new ApiError(401, 'unauthorized', 'the login has ended');
  }
  if (!res.ok) throw new ApiError(res.status, body?.error?.code ?? 'http_error', body?.error?.message ?? `HTTP ${res.status}`);
  return body as T;
}

/** A query string from the defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
