/**
 * A single HTTP probe for doctor with plain `fetch` and a deadline. It separates "the server answered"
 * (status + parsed JSON when there is any) from "could not reach it" (refused, DNS, TLS, timeout), and
 * its messages never include the URL, because some (Telegram's) carry the token in the path.
 */
export type ProbeResult =
  | { kind: 'response'; status: number; json: unknown; headers: Headers }
  | { kind: 'network'; message: string };

export async function probe(url: string, init: RequestInit, timeoutMs: number): Promise<ProbeResult> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    return { kind: 'network', message: networkMessage(e, timeoutMs) };
  }
  let json: unknown;
  try {
    json = JSON.parse(await res.text());
  } catch {
    json = undefined;
  }
  return { kind: 'response', status: res.status, json, headers: res.headers };
}

function networkMessage(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = err.cause;
  if (cause?.code) return cause.code === 'ENOTFOUND' ? 'host not found (ENOTFOUND)' : cause.code;
  return cause?.message ?? err.message;
}

/** A field of a JSON object answer, if the answer is an object with it. */
export function field(json: unknown, key: string): unknown {
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>)[key] : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}
