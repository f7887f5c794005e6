/**
 * Doctor's model endpoint check: `GET <base_url>/models` with `OPENAI_API_KEY` as bearer (base URL
 * default `https://api.openai.com/v1`). Tells a rejected key (401/403) from an unreachable endpoint, and
 * when PENGUIN_MODEL is set, whether the endpoint lists it. An endpoint that does not serve /models
 * passes with a warning (the key could not be verified). Neither variable set: not configured here.
 */
import type { GatewayConfig } from '../../config';
import { field, probe, str } from './http';
import type { CheckResult } from './types';

export const DEFAULT_MODEL_BASE_URL = 'https://api.openai.com/v1';

function errorMessage(json: unknown): string | undefined {
  const err = field(json, 'error');
  return str(field(err, 'message')) ?? str(err) ?? str(field(json, 'message'));
}

export async function checkModel(m: GatewayConfig['model'], timeoutMs: number): Promise<CheckResult> {
  const name = 'model';
  if (!m.api_key && !m.base_url) {
    return { name, status: 'skip', detail: 'not configured here (OPENAI_API_KEY / OPENAI_BASE_URL unset): projects use the model in their .project_config.toml' };
  }
  const base = (m.base_url ?? DEFAULT_MODEL_BASE_URL).replace(/\/+$/, '');
  const r = await probe(`${base}/models`, { method: 'GET', headers: m.api_key ? { authorization: `Bearer ${m.api_key}` } : {} }, timeoutMs);
  if (r.kind === 'network') return { name, status: 'fail', detail: `cannot reach ${base}: ${r.message}`, fix: 'check OPENAI_BASE_URL and that the model server is running and reachable' };
  if (r.status === 401 || r.status === 403) {
    const why = errorMessage(r.json);
    return {
      name,
      status: 'fail',
      detail: `${base} rejected the API key (HTTP ${r.status}${why ? `: ${why}` : ''})`,
      fix: m.api_key ? `set OPENAI_API_KEY to a valid key for ${base}` : `this endpoint needs a key: set OPENAI_API_KEY`,
    };
  }
  if (r.status === 404 || r.status === 405) {
    return { name, status: 'warn', detail: `${base} is reachable but does not serve /models (HTTP ${r.status}); the key was not verified` };
  }
  if (r.status !== 200) {
    return { name, status: 'fail', detail: `unexpected answer from ${base}/models (HTTP ${r.status}${errorMessage(r.json) ? `: ${errorMessage(r.json)}` : ''})`, fix: 'check OPENAI_BASE_URL; try again if the provider is having trouble' };
  }
  const data = field(r.json, 'data');
  const ids = Array.isArray(data) ? data.map((d) => str(field(d, 'id'))).filter((x): x is string => x !== undefined) : [];
  const listed = `${ids.length} model${ids.length === 1 ? '' : 's'} listed`;
  const answered = m.api_key ? 'accepted the key' : 'answered without a key';
  if (m.model_id && ids.length > 0 && !ids.includes(m.model_id)) {
    return { name, status: 'warn', detail: `${base} ${answered} (${listed}) but does not list PENGUIN_MODEL "${m.model_id}"`, fix: `set PENGUIN_MODEL to one of: ${ids.slice(0, 8).join(', ')}${ids.length > 8 ? ', ...' : ''}` };
  }
  return { name, status: 'ok', detail: `${base} ${answered} (${listed}${m.model_id ? `, using ${m.model_id}` : ''})` };
}
