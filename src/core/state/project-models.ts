/**
 * Which model a Session uses, resolved from the project's `[[models]]` table plus the environment
 * contract: blank `api_key` / `base_url` fall back to `OPENAI_API_KEY` / `OPENAI_BASE_URL` (llm layer), and
 * a project with no model entry at all gets one from `PENGUIN_MODEL`, provider `openai`, speaking the
 * OpenAI chat protocol at the OpenAI env endpoint; that env-made entry is never written to the file.
 */
import { ModelEntrySchema, resolveModelConnection, type ModelConnection, type ModelEntry } from '../llm/model-entry';
import { fail, ok, type StateResult } from './errors';
import { formatModelRef, sameRef, type ModelRef, type ProjectConfig } from './project-config';

export const ENV_MODEL_PROVIDER = 'openai';

export interface EffectiveModels {
  models: ModelEntry[];
  defaultModel?: ModelRef;
  /** True when the table came from `PENGUIN_MODEL` because the file has no entry. */
  fromEnv: boolean;
}

type Env = Record<string, string | undefined>;

export function effectiveModels(config: ProjectConfig, env: Env = process.env): EffectiveModels {
  const envModel = env.PENGUIN_MODEL?.trim();
  if (config.models.length === 0 && envModel) {
    const entry = ModelEntrySchema.parse({ provider: ENV_MODEL_PROVIDER, model_id: envModel, client_type: 'openai-chat' });
    return { models: [entry], defaultModel: { provider: ENV_MODEL_PROVIDER, model_id: envModel }, fromEnv: true };
  }
  return { models: config.models, ...(config.default_model ? { defaultModel: config.default_model } : {}), fromEnv: false };
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
    const found = eff.models.length === 0 ? 'no [[models]] entry and no PENGUIN_MODEL in the environment' : 'no default_model key';
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

/** The project's `vision_model` (for describe_image), when configured and present in the table. */
export function resolveVisionModel(config: ProjectConfig, file: string, env: Env = process.env): StateResult<ResolvedModel> | undefined {
  return config.vision_model ? resolveModel(config, file, config.vision_model, env) : undefined;
}
