/**
 * The bare one-shot call (engine.md §3, §11) behind titles and image descriptions: no tools, no system prompt,
 * thinking `none`, 300 output tokens, 30 s overall, no fast mode. Resolves to the reply text, or '' on any
 * failure — it never throws and never retries. `onUsage` hears once what the request cost (or how it ended),
 * since titles are billed like any other request.
 */
import type { BareUsage } from '../interfaces';
import * as b from '../omnimessage/builders';
import type { OmniMessage, StopReason, TokenCounts } from '../omnimessage/types';
import { GenerativeModel, type OpenAIChatModelConfig } from './generative-model';

export const BARE_MAX_TOKENS = 300;
export const BARE_TIMEOUT_MS = 30000;

export type BareModelConfig = Pick<OpenAIChatModelConfig, 'modelId' | 'apiKey' | 'baseUrl' | 'clientType' | 'vision' | 'reasoningEffort'>;

export interface BareGenerateOptions {
  signal?: AbortSignal;
  /** Images to look at (data or http(s) URLs), sent after the prompt. */
  images?: string[];
  /** Overall limit; defaults to 30000 ms. */
  timeoutMs?: number;
  /** Called once per call that reached the point of sending a request. */
  onUsage?: (u: BareUsage) => void;
}

function report(opts: BareGenerateOptions, status: StopReason, counts?: TokenCounts): void {
  try {
    opts.onUsage?.({ timestamp: new Date().toISOString(), status, ...(counts ? { counts } : {}) });
  } catch {
    // a listener's mistake must not turn into a failed title
  }
}

export async function bareGenerate(config: BareModelConfig, prompt: string, opts: BareGenerateOptions = {}): Promise<string> {
  try {
    const timeoutMs = opts.timeoutMs ?? BARE_TIMEOUT_MS;
    const model = new GenerativeModel({ ...config, tools: [], thinkingLevel: 'none', maxTokens: BARE_MAX_TOKENS, requestTimeoutMs: timeoutMs, fastMode: false });
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    const input: OmniMessage[] = [b.userText(prompt), ...(opts.images ?? []).map((url) => b.imageUrl(url))];
    const gen = model.streamGenerate({ newMessages: input, signal });
    let text = '';
    let counts: TokenCounts | undefined;
    for (;;) {
      const r = await gen.next();
      if (r.done) {
        report(opts, r.value.status, r.value.status === 'completed' ? counts : undefined);
        return r.value.status === 'completed' ? text.trim() : '';
      }
      const m = r.value;
      if (m.type === 'model_msg' && m.payload.type === 'text') text += m.payload.text;
      if (m.type === 'event_msg' && m.payload.type === 'token_usage') counts = { ...m.payload.request };
    }
  } catch {
    report(opts, 'failed');
    return '';
  }
}
