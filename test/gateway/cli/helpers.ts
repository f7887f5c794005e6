/**
 * CLI test helpers: an io whose stdout/stderr are captured, run against a fresh temp directory used as
 * both HOME and cwd, with PENGUIN_HOME inside it. `cleanup()` removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliDeps, type CliIO } from '../../../src/gateway/cli/index';

export interface CliEnv {
  dir: string;
  home: string;
  env: Record<string, string>;
  run(argv: string[], deps?: CliDeps): Promise<{ code: number; stdout: string; stderr: string }>;
  cleanup(): void;
}

export function cliEnv(extra: Record<string, string> = {}): CliEnv {
  const dir = mkdtempSync(join(tmpdir(), 'pg-cli-'));
  const home = join(dir, 'data');
  const env: Record<string, string> = { HOME: dir, PENGUIN_HOME: home, ...extra };
  return {
    dir,
    home,
    env,
    async run(argv, deps) {
      let stdout = '';
      let stderr = '';
      const io: CliIO = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env, cwd: dir };
      const code = await runCli(argv, io, deps);
      return { code, stdout, stderr };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
