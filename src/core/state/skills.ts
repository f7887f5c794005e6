/**
 * Skills (engine.md §6.3): `agent_state/skills/<name>/SKILL.md` with scalar YAML frontmatter. The directory
 * name (`^[A-Za-z0-9_-]+$`) is the identity and wins over a frontmatter `name`; only `- \`name\` — description`
 * lines reach the prompt, sorted; the model reads SKILL.md itself. Listing is tolerant (a skill whose
 * frontmatter cannot be read still lists under its directory name) and reads the disk every time.
 */
import { cp, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ID_RE } from './paths';
import { ownStrings } from './parse-text';

export interface SkillMetadata {
  /** The directory name. */
  name: string;
  description: string;
  short_description?: string;
  short_description_zh?: string;
  /** Only the literal `false` is meaningful: not installed into new agents. */
  preinstall?: false;
  /** Natural number, default 1. */
  version: number;
  updated?: string;
  /** The frontmatter `name`, when it differs from the directory name. */
  declaredName?: string;
  /** Set when the frontmatter could not be read; the skill still lists. */
  warning?: string;
}

/** The frontmatter block of a SKILL.md, or undefined when the file does not start with one. */
export function frontmatterBlock(text: string): string | undefined {
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!src.startsWith('---\n')) return undefined;
  const end = src.indexOf('\n---', 3);
  if (end < 0) return undefined;
  const after = src[end + 4];
  if (after !== undefined && after !== '\n') return undefined;
  return src.slice(4, end);
}

/** Line-oriented `key: value` reading, for frontmatter YAML rejects (e.g. an unquoted `: ` in a description). */
function looseFields(block: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of block.split('\n')) {
    const m = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    if (m) out[m[1]] = m[2].replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

const scalar = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

export function parseSkillMarkdown(dirName: string, text: string): SkillMetadata {
  const block = frontmatterBlock(text);
  const meta: SkillMetadata = { name: dirName, description: '', version: 1 };
  if (block === undefined) {
    meta.warning = 'SKILL.md has no frontmatter block';
    return meta;
  }
  let fields: Record<string, unknown>;
  try {
    const parsed: unknown = parseYaml(block);
    fields = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : looseFields(block);
  } catch {
    fields = looseFields(block);
  }
  const description = scalar(fields.description);
  if (description !== undefined) meta.description = description.replace(/\s+/g, ' ');
  const short = scalar(fields.short_description);
  if (short !== undefined) meta.short_description = short;
  const shortZh = scalar(fields.short_description_zh);
  if (shortZh !== undefined) meta.short_description_zh = shortZh;
  if (fields.preinstall === false || fields.preinstall === 'false') meta.preinstall = false;
  const version = Number(scalar(fields.version));
  if (Number.isInteger(version) && version >= 1) meta.version = version;
  const updated = fields.updated instanceof Date ? fields.updated.toISOString().slice(0, 10) : scalar(fields.updated);
  if (updated !== undefined) meta.updated = updated;
  const declared = scalar(fields.name);
  if (declared !== undefined && declared !== dirName) meta.declaredName = declared;
  // Kept for the agent's life: copies, not slices that would keep the whole SKILL.md alive.
  return ownStrings(meta) as SkillMetadata;
}

/** Installed skills, sorted by name; [] when the directory is missing. */
export async function listSkills(skillsDir: string): Promise<SkillMetadata[]> {
  let entries;
  try {
    entries = await readdir(skillsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: SkillMetadata[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || !ID_RE.test(e.name)) continue;
    let text: string;
    try {
      text = await readFile(join(skillsDir, e.name, 'SKILL.md'), 'utf8');
    } catch {
      continue;
    }
    out.push(parseSkillMarkdown(e.name, text));
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The `{{SKILL_METADATA}}` lines. */
export function skillMetadataLines(skills: readonly SkillMetadata[]): string {
  return [...skills]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((s) => (s.description ? `- \`${s.name}\` — ${s.description}` : `- \`${s.name}\``))
    .join('\n');
}

/** Copy one skill directory into `skillsDir/<name>`, replacing what was there (staged, then renamed). */
export async function installSkillFrom(sourceDir: string, skillsDir: string, name: string): Promise<void> {
  if (!ID_RE.test(name)) throw new RangeError(`invalid skill name ${JSON.stringify(name)}`);
  const target = join(skillsDir, name);
  const staging = join(skillsDir, `.${name}.incoming`);
  await mkdir(skillsDir, { recursive: true });
  await rm(staging, { recursive: true, force: true });
  try {
    await cp(sourceDir, staging, { recursive: true });
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Install every built-in skill not marked `preinstall: false`; returns the names installed. */
export async function installBuiltinSkills(builtinDir: string, skillsDir: string): Promise<string[]> {
  const installed: string[] = [];
  for (const skill of await listSkills(builtinDir)) {
    if (skill.preinstall === false) continue;
    await installSkillFrom(join(builtinDir, skill.name), skillsDir, skill.name);
    installed.push(skill.name);
  }
  return installed;
}

/** The repository's top-level `skills/` folder, found next to package.json above this module. */
export function defaultBuiltinSkillsDir(from: string = __dirname): string | undefined {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'skills'))) return join(dir, 'skills');
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}
