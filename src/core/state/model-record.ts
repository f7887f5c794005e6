/**
 * Records a model a session runs on in the project file when the file does not list it yet (a model made
 * from PENGUIN_MODEL): PenguinHarness resumes a session only if its (provider, model_id) pair is in
 * `[[models]]`, so the same data dir must work in both. Reads the file fresh, appends the entry (no key:
 * the environment supplies it), writes atomically with the file's secret mode; never touches other keys.
 */
import type { ModelEntry } from '../llm/model-entry';
import { loadProjectConfig, saveProjectConfig, sameRef, type ProjectConfig } from './project-config';

/** True when the entry was added. Throws on an unreadable file (the caller logs it; the session runs anyway). */
export async function recordModelEntry(projectFile: string, entry: ModelEntry): Promise<boolean> {
  const loaded = await loadProjectConfig(projectFile);
  if (loaded && !loaded.ok) throw new Error(loaded.error.message);
  const config: ProjectConfig = loaded?.value ?? { models: [] };
  if (config.models.some((m) => sameRef(m, entry))) return false;
  const { api_key: _key, ...withoutKey } = entry;
  await saveProjectConfig(projectFile, { ...config, models: [...config.models, withoutKey] });
  return true;
}
