/**
 * Helpers the scheduler's end-to-end tests share: the default agent's schedule folder under a data root,
 * a schedule id, writing a schedule file, and polling an admin-API condition until it holds (the fake
 * platforms' own waitFor is for what they see themselves).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const scheduleId = (name: string) => `default_project:default_agent:${name}`;

export const scheduleDir = (home: string) => join(home, 'default_project', 'agents', 'default_agent', 'agent_state', 'schedule');

export async function writeScheduleFile(home: string, name: string, toml: string): Promise<void> {
  await mkdir(scheduleDir(home), { recursive: true });
  await writeFile(join(scheduleDir(home), `${name}.toml`), toml);
}

export async function until<T>(label: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
