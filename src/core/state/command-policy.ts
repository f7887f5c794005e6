/**
 * Command-policy evaluation (engine.md §2.1, §6.4): the text a tool call would run — `exec_command.cmd`,
 * or `input_command.chars` (a lone Ctrl-C is exempt) — is whitespace-normalized and tested, together with
 * its unquoted variant, against the enabled rules; the first hit vetoes the call as `forbidden` before any
 * approval mode is consulted. A Session takes one snapshot (a plain function) when it is created, so
 * later edits to the project file never change a running Session.
 */
import type { ToolCallMessage } from '../interfaces';
import { FACTORY_COMMAND_POLICY_RULES, type CommandPolicyRule } from './command-policy-rules';
import { compilePolicyPattern } from './regex-compat';

export type { CommandPolicyRule } from './command-policy-rules';
export { FACTORY_COMMAND_POLICY_RULES } from './command-policy-rules';

export interface CommandPolicyConfig {
  /** Absent = on. */
  enabled?: boolean;
  /** Absent = the factory rules; a present list is the whole list. */
  rules?: CommandPolicyRule[];
}

export interface CommandPolicyHit {
  rule: string;
  description?: string;
  /** The normalized text that matched. */
  command: string;
}

/** The per-Session snapshot: a hit when the call must be forbidden, otherwise undefined. */
export type CommandPolicyCheck = (toolCall: ToolCallMessage) => CommandPolicyHit | undefined;

export const CTRL_C = '\u0003';

export function normalizeCommand(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The command with quoting removed (`'`, `"`, backslash escapes), so `r"m" -rf` reads as `rm -rf`. */
export function unquotedVariant(normalized: string): string {
  return normalizeCommand(normalized.replace(/\\(.)/g, '$1').replace(/["']/g, ''));
}

/** The shell text a tool call would run, or undefined when the call runs none (or only sends Ctrl-C). */
export function commandTextOf(toolCall: ToolCallMessage): string | undefined {
  const name = toolCall.payload.name;
  if (name !== 'exec_command' && name !== 'input_command') return undefined;
  let args: unknown;
  try {
    args = JSON.parse(toolCall.payload.arguments);
  } catch {
    return undefined;
  }
  if (args === null || typeof args !== 'object') return undefined;
  const value = (args as Record<string, unknown>)[name === 'exec_command' ? 'cmd' : 'chars'];
  if (typeof value !== 'string' || value === CTRL_C) return undefined;
  return value;
}

export function effectiveRules(config?: CommandPolicyConfig): readonly CommandPolicyRule[] {
  return config?.rules ?? FACTORY_COMMAND_POLICY_RULES;
}

interface CompiledRule {
  rule: CommandPolicyRule;
  re: RegExp;
}

/** Compiles the enabled rules once; throws RangeError naming a rule whose pattern does not compile. */
function compileRules(config?: CommandPolicyConfig): CompiledRule[] {
  if (config?.enabled === false) return [];
  return effectiveRules(config)
    .filter((r) => r.enabled !== false)
    .map((rule) => {
      try {
        return { rule, re: compilePolicyPattern(rule.pattern) };
      } catch (err) {
        throw new RangeError(`command policy rule ${JSON.stringify(rule.name)}: ${(err as Error).message}`);
      }
    });
}

function firstHit(rules: CompiledRule[], text: string): CommandPolicyHit | undefined {
  const normalized = normalizeCommand(text);
  if (normalized === '') return undefined;
  const variants = [normalized];
  const unquoted = unquotedVariant(normalized);
  if (unquoted !== normalized) variants.push(unquoted);
  for (const { rule, re } of rules) {
    for (const v of variants) {
      if (re.test(v)) return { rule: rule.name, ...(rule.description !== undefined ? { description: rule.description } : {}), command: v };
    }
  }
  return undefined;
}

/** Test one command text against a policy (compiles on every call; prefer a snapshot for repeated use). */
export function evaluateCommand(text: string, config?: CommandPolicyConfig): CommandPolicyHit | undefined {
  return firstHit(compileRules(config), text);
}

/** The Session snapshot of a policy: rules compiled now, config changes afterwards have no effect. */
export function commandPolicyCheck(config?: CommandPolicyConfig): CommandPolicyCheck {
  const rules = compileRules(config);
  return (toolCall) => {
    if (rules.length === 0) return undefined;
    const text = commandTextOf(toolCall);
    return text === undefined ? undefined : firstHit(rules, text);
  };
}
