/**
 * Whether an endpoint's host is this machine or a private network (loopback, RFC 1918, link-local, ULA,
 * `.local` / `.internal` / `.lan`, single-label container names): where a keyless OpenAI-compatible server
 * (Ollama, vLLM, a compose service) is expected. A public host without a key can only answer "unauthorized".
 */
import { isIP } from 'node:net';

export function isPrivateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || h.endsWith('.lan')) return true;
  if (isIP(h) === 6) return h === '::1' || h.startsWith('fc') || h.startsWith('fd') || h.startsWith('fe80');
  if (isIP(h) === 4) {
    const [a, b] = h.split('.').map(Number);
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  // a single-label name (`ollama`, `vllm`) is a container or LAN host
  return !h.includes('.');
}

/** True when `baseUrl` parses and names a private host; undefined (the SDK's default, api.openai.com) is public. */
export function isPrivateBaseUrl(baseUrl: string | undefined): boolean {
  if (baseUrl === undefined) return false;
  try {
    return isPrivateHost(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}
