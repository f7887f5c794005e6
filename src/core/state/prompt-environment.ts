/**
 * Values for the environment placeholders of the system prompt: platform, OS version, shell and local
 * date come from the host (each overridable, so tests and callers stay deterministic); the rest describe
 * the Session.
 */
import { platform, release, type } from 'node:os';
import { basename } from 'node:path';
import type { PromptEnvironment } from './prompt-assembly';

const pad = (n: number) => String(n).padStart(2, '0');

export function localDate(now: Date): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export interface SessionEnvironmentInput {
  projectDir: string;
  agentId: string;
  cwd: string;
  provider: string;
  modelId: string;
  sessionId: string;
  now?: Date;
  platform?: string;
  osVersion?: string;
  shell?: string;
}

/** The shell exec_command runs: `PENGUIN_SHELL` when set, else bash. */
export function commandShellName(env: Record<string, string | undefined> = process.env): string {
  const s = env.PENGUIN_SHELL?.trim();
  return s ? basename(s) : 'bash';
}

export function sessionEnvironment(input: SessionEnvironmentInput): PromptEnvironment {
  return {
    platform: input.platform ?? platform(),
    osVersion: input.osVersion ?? `${type()} ${release()}`,
    shell: input.shell ?? commandShellName(),
    date: localDate(input.now ?? new Date()),
    projectDir: input.projectDir,
    agentId: input.agentId,
    cwd: input.cwd,
    provider: input.provider,
    modelId: input.modelId,
    sessionId: input.sessionId,
  };
}
