/**
 * A system prompt assembled once for an agent's sessions: `compilePrompt` is `assembleSystemPrompt` with the
 * per-session values (`{{CWD}}`, `{{SESSION_ID}}`) left as slots, `fillPrompt` gives `head + rest` (the head
 * one string for all sessions), and `PromptCompiler` compiles again only when another input changes. Text
 * equals the direct assembly's; inputs carrying the marker, and values a trim would change, are not compiled.
 */
import { assembleSystemPrompt, type PromptInputs } from './prompt-assembly';

export type PromptSlot = 'cwd' | 'sessionId';

export interface CompiledPrompt {
  /** Text around the slots: `parts[i]`, slot `i`, `parts[i + 1]`, … */
  readonly parts: readonly string[];
  readonly slots: readonly PromptSlot[];
}

export interface PromptHalves {
  /** The text before the first per-session value: one string for every session of the compiled prompt. */
  head: string;
  rest: string;
}

/** NUL never occurs in a path or a session id, and inputs that carry one are assembled directly. */
const MARK = '\u0000';
const MARKS: Record<PromptSlot, string> = { cwd: `${MARK}cwd${MARK}`, sessionId: `${MARK}sid${MARK}` };
const MARK_RE = /\u0000(cwd|sid)\u0000/g;

function carriesMark(inputs: PromptInputs): boolean {
  const { sections: s, env, memory } = inputs;
  const texts = [
    inputs.template,
    inputs.agentsMd,
    s.vault.prompt,
    s.skills.prompt,
    s.memory.prompt,
    s.memory.workspace_prompt,
    s.schedules.prompt,
    ...Object.values(env),
    ...inputs.vaultKeys,
    ...inputs.scheduleNames,
    ...inputs.skills.flatMap((k) => [k.name, k.description]),
    memory?.userIndex ?? '',
    memory?.workspace?.dir ?? '',
    memory?.workspace?.index ?? '',
  ];
  return texts.some((t) => t.includes(MARK));
}

/** The prompt with slots for the session's values; undefined when an input carries the marker character. */
export function compilePrompt(inputs: PromptInputs): CompiledPrompt | undefined {
  if (carriesMark(inputs)) return undefined;
  const text = assembleSystemPrompt({ ...inputs, env: { ...inputs.env, cwd: MARKS.cwd, sessionId: MARKS.sessionId } });
  const parts: string[] = [];
  const slots: PromptSlot[] = [];
  let at = 0;
  for (const m of text.matchAll(MARK_RE)) {
    parts.push(text.slice(at, m.index));
    slots.push(m[1] === 'cwd' ? 'cwd' : 'sessionId');
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  return { parts, slots };
}

/** Whether the values give the direct assembly's text when filled in (a trim would not cut them). */
function fits(values: Record<PromptSlot, string>): boolean {
  return (Object.values(values) as string[]).every((v) => v !== '' && v === v.trim() && !v.includes(MARK));
}

export function fillPrompt(compiled: CompiledPrompt, values: Record<PromptSlot, string>): PromptHalves {
  const { parts, slots } = compiled;
  let rest = '';
  for (let i = 0; i < slots.length; i++) rest += values[slots[i]!] + parts[i + 1]!;
  return { head: parts[0]!, rest };
}

const sameList = <T>(a: readonly T[], b: readonly T[]): boolean => a === b || (a.length === b.length && a.every((x, i) => x === b[i]));

/** Whether two prompts' inputs differ at most in the session's values. */
function sameBesidesSession(a: PromptInputs, b: PromptInputs): boolean {
  const env = (Object.keys(a.env) as (keyof PromptInputs['env'])[]).every((k) => k === 'cwd' || k === 'sessionId' || a.env[k] === b.env[k]);
  const am = a.memory;
  const bm = b.memory;
  const memory =
    am === bm ||
    (am !== undefined &&
      bm !== undefined &&
      am.userDir === bm.userDir &&
      am.userIndex === bm.userIndex &&
      am.workspace?.dir === bm.workspace?.dir &&
      am.workspace?.index === bm.workspace?.index);
  return (
    env &&
    memory &&
    a.template === b.template &&
    a.agentsMd === b.agentsMd &&
    a.sections === b.sections &&
    sameList(a.vaultKeys, b.vaultKeys) &&
    sameList(a.scheduleNames, b.scheduleNames) &&
    sameList(a.skills, b.skills)
  );
}

/**
 * One agent's prompt, compiled once and compiled again only when an input other than the session's values
 * changes (an edited AGENTS.md, a new skill, the date): each new session then costs a fill, not an assembly.
 */
export class PromptCompiler {
  private last?: { inputs: PromptInputs; compiled: CompiledPrompt | undefined };

  halves(inputs: PromptInputs): PromptHalves {
    const values = { cwd: inputs.env.cwd, sessionId: inputs.env.sessionId };
    if (!fits(values)) return { head: '', rest: assembleSystemPrompt(inputs) };
    if (!this.last || !sameBesidesSession(this.last.inputs, inputs)) this.last = { inputs, compiled: compilePrompt(inputs) };
    const compiled = this.last.compiled;
    return compiled ? fillPrompt(compiled, values) : { head: '', rest: assembleSystemPrompt(inputs) };
  }
}
