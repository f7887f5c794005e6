/**
 * The `openai` SDK, required on first use instead of at start: a process that has not called a model yet
 * (a gateway at idle, the CLI's other commands) does not load its ~150 modules. Every value this folder
 * needs from the SDK (the client class, its error classes) comes from here; types are imported as types.
 */
import type * as OpenAISdk from 'openai';

let sdk: typeof OpenAISdk | undefined;

export function openaiSdk(): typeof OpenAISdk {
  return (sdk ??= require('openai') as typeof OpenAISdk);
}
