/**
 * Operator edits of schedule files: `enabled` / `approval_mode` lines replaced or appended in place with
 * comments kept, a key the line edit cannot safely reach rewritten from the parsed table, the file replaced
 * atomically (no temp file left), and an unparsable file refused.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseToml } from '../../../src/core/state/toml';
import { editScheduleFile, editScheduleText } from '../../../src/gateway/scheduler';

describe('schedule file edits', () => {
  it('replaces the line in place and keeps comments and order', () => {
    const text = '# daily digest\nprompt = "p" # the ask\nenabled = false\nstart_at = 2026-06-01T09:00:00Z\n';
    const r = editScheduleText(text, 'f', { enabled: true });
    expect(r).toEqual({ ok: true, text: '# daily digest\nprompt = "p" # the ask\nenabled = true\nstart_at = 2026-06-01T09:00:00Z\n' });
  });

  it('appends a key the file does not have', () => {
    const r = editScheduleText('prompt = "p"\nstart_at = 2026-06-01T09:00:00Z', 'f', { enabled: true, approval_mode: 'allow-all' });
    expect(r.ok && r.text).toBe('prompt = "p"\nstart_at = 2026-06-01T09:00:00Z\nenabled = true\napproval_mode = "allow-all"\n');
  });

  it('rewrites from the parsed table when the key sits where a line edit would change something else', () => {
    const text = 'prompt = """\nenabled = false\n"""\nstart_at = 2026-06-01T09:00:00Z\n';
    const r = editScheduleText(text, 'f', { enabled: true });
    expect(r.ok).toBe(true);
    const parsed = parseToml(r.ok ? r.text : '') as Record<string, unknown>;
    expect(parsed.prompt).toBe('enabled = false\n');
    expect(parsed.enabled).toBe(true);
  });

  it('refuses a file that does not parse', () => {
    expect(editScheduleText('prompt = ', '/x/f.toml', { enabled: true })).toMatchObject({ ok: false, error: expect.stringMatching(/^\/x\/f\.toml: \(file\): expected valid TOML/) });
  });

  it('replaces the file atomically', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pg-edit-'));
    try {
      const f = join(dir, 'job.toml');
      await writeFile(f, 'prompt = "p"\nenabled = true\nstart_at = 2026-06-01T09:00:00Z\n');
      expect((await editScheduleFile(f, { enabled: false })).ok).toBe(true);
      expect(await readFile(f, 'utf8')).toContain('enabled = false');
      expect(await readdir(dir)).toEqual(['job.toml']);
      expect(await editScheduleFile(join(dir, 'missing.toml'), { enabled: true })).toMatchObject({ ok: false, error: expect.stringMatching(/cannot read/) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
