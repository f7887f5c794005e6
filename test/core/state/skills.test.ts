import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  defaultBuiltinSkillsDir,
  installBuiltinSkills,
  listSkills,
  parseSkillMarkdown,
  skillMetadataLines,
} from '../../../src/core/state/skills';
import { checkUseSkills, formatUseSkills, parseUseSkills } from '../../../src/core/state/use-skills';
import { cleanupTempDirs, FIXTURE_AGENT_STATE, tempDir } from './helpers';

afterAll(cleanupTempDirs);
const REPO_SKILLS = resolve(__dirname, '../../../skills');

describe('skills', () => {
  it('lists the fixture skills sorted, the directory name winning over the frontmatter name', async () => {
    const skills = await listSkills(join(FIXTURE_AGENT_STATE, 'skills'));
    expect(skills).toEqual([
      {
        name: 'release_notes',
        declaredName: 'release-notes-writer',
        // Not strict YAML (an unquoted ": "), read line by line instead.
        description: 'Use when: someone asks for release notes from merged pull requests',
        version: 1,
      },
      {
        name: 'web-research',
        description: 'Search the web and cite sources for factual questions',
        short_description: 'Web research with citations',
        short_description_zh: '带引用的网络调研',
        version: 3,
        updated: '2026-08-12',
      },
    ]);
    expect(skillMetadataLines(skills)).toBe(
      '- `release_notes` — Use when: someone asks for release notes from merged pull requests\n- `web-research` — Search the web and cite sources for factual questions',
    );
  });

  it('reads frontmatter fields and tolerates broken files', () => {
    expect(parseSkillMarkdown('s', '---\nname: s\ndescription: "quoted: fine"\npreinstall: false\nversion: 0\n---\nbody')).toEqual({ name: 's', description: 'quoted: fine', preinstall: false, version: 1 });
    expect(parseSkillMarkdown('s', '# no frontmatter')).toMatchObject({ name: 's', description: '', warning: expect.any(String) });
    expect(parseSkillMarkdown('s', '---\r\ndescription: >\r\n  folded\r\n  text\r\n---\r\n')).toMatchObject({ description: 'folded text' });
    expect(skillMetadataLines([{ name: 'bare', description: '', version: 1 }])).toBe('- `bare`');
  });

  it('skips directories that are not skills', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'no-skill-md'));
    await mkdir(join(dir, 'bad name'));
    await writeFile(join(dir, 'bad name', 'SKILL.md'), '---\ndescription: x\n---\n');
    await mkdir(join(dir, '.staging.incoming'));
    await writeFile(join(dir, '.staging.incoming', 'SKILL.md'), '---\ndescription: x\n---\n');
    expect(await listSkills(dir)).toEqual([]);
    expect(await listSkills(join(dir, 'missing'))).toEqual([]);
  });

  it('ships built-in skills with complete frontmatter in the repository skills/ folder', async () => {
    expect(defaultBuiltinSkillsDir()).toBe(REPO_SKILLS);
    const skills = await listSkills(REPO_SKILLS);
    expect(skills.length).toBeGreaterThanOrEqual(2);
    for (const s of skills) {
      expect(s.warning).toBeUndefined();
      expect(s.declaredName).toBeUndefined();
      expect(s.description.length).toBeGreaterThan(40);
      expect(s.short_description).toBeTruthy();
      expect(s.updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const body = await readFile(join(REPO_SKILLS, s.name, 'SKILL.md'), 'utf8');
      expect(body.split('\n').length).toBeGreaterThan(30);
    }
    expect(skills.map((s) => s.name)).toEqual(expect.arrayContaining(['chat-replies', 'safe-shell']));
  });

  it('installs built-in skills, skipping preinstall: false, replacing stale files', async () => {
    const src = await tempDir();
    await mkdir(join(src, 'one', 'reference'), { recursive: true });
    await writeFile(join(src, 'one', 'SKILL.md'), '---\nname: one\ndescription: first\n---\n');
    await writeFile(join(src, 'one', 'reference', 'API.md'), 'ref');
    await mkdir(join(src, 'manual'));
    await writeFile(join(src, 'manual', 'SKILL.md'), '---\nname: manual\ndescription: opt-in\npreinstall: false\n---\n');
    const dest = join(await tempDir(), 'skills');
    await mkdir(join(dest, 'one'), { recursive: true });
    await writeFile(join(dest, 'one', 'stale.md'), 'old');
    expect(await installBuiltinSkills(src, dest)).toEqual(['one']);
    expect((await readdir(join(dest, 'one'))).sort()).toEqual(['SKILL.md', 'reference']);
    expect(await readFile(join(dest, 'one', 'reference', 'API.md'), 'utf8')).toBe('ref');
    expect(await readdir(dest)).toEqual(['one']);
  });
});

describe('[use_skills]', () => {
  it('formats and parses the host prefix', () => {
    const text = formatUseSkills(['web-research', 'release_notes', 'web-research'], 'summarize the week');
    expect(text).toBe('[use_skills]\nskills: web-research, release_notes\n[/use_skills]\n\nsummarize the week');
    expect(parseUseSkills(text)).toEqual({ skills: ['web-research', 'release_notes'], rest: 'summarize the week' });
    expect(formatUseSkills([], 'plain')).toBe('plain');
  });

  it('reads only a leading block, including the legacy angle form', () => {
    expect(parseUseSkills('hello [use_skills]\nskills: a\n[/use_skills]')).toBeUndefined();
    expect(parseUseSkills('<use_skills>\nskills: a,b\n</use_skills>\nrest')).toEqual({ skills: ['a', 'b'], rest: 'rest' });
    expect(parseUseSkills('  [use_skills]\nskills:\n[/use_skills]')).toEqual({ skills: [], rest: '' });
  });

  it('splits pinned names into installed and unknown', () => {
    expect(checkUseSkills(['a', 'x'], [{ name: 'a' }, { name: 'b' }])).toEqual({ known: ['a'], unknown: ['x'] });
  });
});
