/**
 * The `[use_skills]` host prefix (engine.md §1.9): a message may pin skills with a leading block
 * `[use_skills]\nskills: a, b\n[/use_skills]` followed by a blank line and the person's text.
 */
import { findBlocks, formatBlock, parseFields } from '../omnimessage/markers';

export interface UseSkills {
  skills: string[];
  /** The text after the block. */
  rest: string;
}

/** The pinned skills of a message, or undefined when it does not start with a `[use_skills]` block. */
export function parseUseSkills(text: string): UseSkills | undefined {
  const lead = text.length - text.trimStart().length;
  const block = findBlocks(text, 'use_skills').find((b) => b.start === lead);
  if (!block) return undefined;
  const { fields } = parseFields(block.body);
  const skills = (fields.skills ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return { skills: [...new Set(skills)], rest: text.slice(block.end).replace(/^[ \t]*\r?\n(?:[ \t]*\r?\n)?/, '') };
}

/** Prefix a message with a `[use_skills]` block (no block for an empty list). */
export function formatUseSkills(skills: readonly string[], text: string): string {
  const names = [...new Set(skills.map((s) => s.trim()).filter((s) => s !== ''))];
  if (names.length === 0) return text;
  return `${formatBlock('use_skills', `skills: ${names.join(', ')}`)}\n\n${text}`;
}

/** Split pinned names into installed and unknown ones. */
export function checkUseSkills(pinned: readonly string[], installed: readonly { name: string }[]): { known: string[]; unknown: string[] } {
  const names = new Set(installed.map((s) => s.name));
  return { known: pinned.filter((s) => names.has(s)), unknown: pinned.filter((s) => !names.has(s)) };
}
