/**
 * Which model a Session uses, resolved from the project's `[[models]]` table plus the environment
 * contract: blank `api_key` / `base_url` fall back to `OPENAI_API_KEY` / `OPENAI_BASE_URL` (llm layer), and
 * a project with no model entry at all gets one from `PENGUIN_MODEL`, provider `openai`, speaking the
 * OpenAI chat protocol at the OpenAI env endpoint (recorded in the file once a session uses it, so
 * PenguinHarness can resume that session). Without `default_model` (what PenguinHarness leaves when the
 * default is removed) new sessions take PENGUIN_MODEL, else the first [[models]] entry.
 */
import { ModelEntrySchema, resolveModelConnection, type ModelConnection, type ModelEntry } from '../llm/model-entry';
import { fail, ok, type StateResult } from './errors';
import { formatModelRef, sameRef, type ModelRef, type ProjectConfig } from './project-config';

export const ENV_MODEL_PROVIDER = 'openai';

export interface EffectiveModels {
  models: ModelEntry[];
  defaultModel?: ModelRef;
  /** True when the default is made from `PENGUIN_MODEL` because the file lists no such entry (yet). */
  fromEnv: boolean;
  /** Where the default came from: the file's default_model, PENGUIN_MODEL, or the first [[models]] entry. */
  defaultFrom: 'file' | 'env' | 'first-entry' | 'none';
}

type Env = Record<string, string | undefined>;

/**
 * The entry made from `PENGUIN_MODEL`, parsed once per model id: every new session resolves its model (twice
 * on the gateway's path), and a parse per session was most of what resolving costs. Frozen, as it is shared.
 */
const envEntries = new Map<string, ModelEntry>();

function envEntry(modelId: string): ModelEntry {
  let entry = envEntries.get(modelId);
  if (!entry) {
    entry = Object.freeze(ModelEntrySchema.parse({ provider: ENV_MODEL_PROVIDER, model_id: modelId, client_type: 'openai-chat' }));
    envEntries.set(modelId, entry);
  }
  return entry;
}

export function effectiveModels(config: ProjectConfig, env: Env = process.env): EffectiveModels {
  const envModel = env.PENGUIN_MODEL?.trim();
  if (config.default_model) return { models: config.models, defaultModel: config.default_model, fromEnv: false, defaultFrom: 'file' };
  if (envModel) {
    const same = config.models.filter((m) => m.model_id === envModel);
    const listed = same.find((m) => m.provider === ENV_MODEL_PROVIDER) ?? same[0];
    if (listed) return { models: config.models, defaultModel: { provider: listed.provider, model_id: listed.model_id }, fromEnv: false, defaultFrom: 'env' };
    return { models: [...config.models, envEntry(envModel)], defaultModel: { provider: ENV_MODEL_PROVIDER, model_id: envModel }, fromEnv: true, defaultFrom: 'env' };
  }
  const first = config.models[0];
  if (!first) return { models: config.models, fromEnv: false, defaultFrom: 'none' };
  return { models: config.models, defaultModel: { provider: first.provider, model_id: first.model_id }, fromEnv: false, defaultFrom: 'first-entry' };
}

export interface ResolvedModel {
  ref: ModelRef;
  entry: ModelEntry;
  /** Credentials and endpoint after the env fallback. */
  connection: ModelConnection;
}

/**
 * The entry for `ref`, or for the project's default model when `ref` is omitted. Errors name the project
 * file and the key (`default_model`, or the pair that was asked for).
 */
export function resolveModel(config: ProjectConfig, file: string, ref?: ModelRef, env: Env = process.env): StateResult<ResolvedModel> {
  const eff = effectiveModels(config, env);
  const wanted = ref ?? eff.defaultModel;
  if (!wanted) {
    const found = 'no [[models]] entry and no PENGUIN_MODEL in the environment';
    return fail(file, 'invalid', [{ path: 'default_model', expected: 'a { provider, model_id } pair naming a [[models]] entry', found }]);
  }
  const entry = eff.models.find((m) => sameRef(m, wanted));
  if (!entry) {
    return fail(file, 'invalid', [
      {
        path: ref ? 'models' : 'default_model',
        expected: `a [[models]] entry for ${formatModelRef(wanted)}`,
        found: eff.models.length === 0 ? 'no [[models]] entries' : `only ${eff.models.map(formatModelRef).join(', ')}`,
      },
    ]);
  }
  return ok({ ref: { provider: wanted.provider, model_id: wanted.model_id }, entry, connection: resolveModelConnection(entry, env) });
}

/** The entry a session on the env-made model should leave in the project file ([[models]], no key: env supplies it). */
export function envModelEntry(config: ProjectConfig, env: Env = process.env): ModelEntry | undefined {
  const eff = effectiveModels(config, env);
  return eff.fromEnv ? eff.models[eff.models.length - 1] : undefined;
}

/** The project's `vision_model` (for describe_image), when configured and present in the table. */
export function resolveVisionModel(config: ProjectConfig, file: string, env: Env = process.env): StateResult<ResolvedModel> | undefined {
  return config.vision_model ? resolveModel(config, file, config.vision_model, env) : undefined;
}
