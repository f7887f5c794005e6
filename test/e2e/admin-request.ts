/**
 * One admin-API call from an end-to-end test: `init.body` is sent as JSON (POST unless a method is given),
 * with the bearer token; the answer's body is parsed as JSON (undefined when empty).
 */
export interface AdminInit {
  method?: string;
  body?: unknown;
}

export async function adminRequest(baseUrl: string, token: string, path: string, init: AdminInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
