/**
 * `.env.example` stays the complete, safe list of the environment: every variable the gateway's source
 * reads (the config loader and the engine's own PENGUIN_* / OPENAI_* reads) and every variable of the
 * README's "Environment" table appears in it, each with a comment above it, and no line carries a value
 * that could be a secret (secrets are left empty; only URLs, model names and the compose profile are filled).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
/** Variables the host shell provides; the gateway reads them but they are nobody's configuration. */
const HOST_VARIABLES = new Set(['HOME', 'PATH']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Names read as `env.NAME` anywhere in src/, and every NAME_WITH_UNDERSCORE string env.ts's readers are given. */
function variablesReadBySource(): Set<string> {
  const names = new Set<string>();
  for (const f of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b/g)) names.add(m[1]);
    if (f.endsWith(join('config', 'env.ts'))) for (const m of text.matchAll(/'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g)) names.add(m[1]);
  }
  for (const h of HOST_VARIABLES) names.delete(h);
  return names;
}

/** Backticked names in the first column of the README's Environment table. */
function readmeVariables(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^### Environment$/m)[1].split(/^#{2,3} /m)[0];
  return section.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
}

/** NAME → the assignment lines for it (commented or not) and whether a comment line sits above the first. */
function entries(): Map<string, { value: string; commentedOut: boolean; explained: boolean }[]> {
  const out = new Map<string, { value: string; commentedOut: boolean; explained: boolean }[]>();
  const lines = example.split('\n');
  lines.forEach((line, i) => {
    const m = /^(# )?([A-Z][A-Z0-9_]+)=(.*)$/.exec(line);
    if (!m) return;
    let j = i - 1;
    while (j >= 0 && /^(# )?[A-Z][A-Z0-9_]+=/.test(lines[j])) j--;
    const explained = j >= 0 && lines[j].startsWith('#');
    out.set(m[2], [...(out.get(m[2]) ?? []), { value: m[3], commentedOut: m[1] !== undefined, explained }]);
  });
  return out;
}

it('names every variable the source reads', () => {
  const read = variablesReadBySource();
  expect(read.size).toBeGreaterThan(15);
  const missing = [...read].filter((n) => !entries().has(n));
  expect(missing).toEqual([]);
});

it('names every variable of the README Environment table, each explained by a comment', () => {
  const names = readmeVariables();
  expect(names).toEqual(expect.arrayContaining(['PENGUIN_HOME', 'OPENAI_API_KEY', 'DISCORD_BOT_TOKEN', 'PENGUIN_ALLOW_USERS']));
  const e = entries();
  expect(names.filter((n) => !e.has(n))).toEqual([]);
  expect([...e].filter(([, v]) => !v[0].explained).map(([n]) => n)).toEqual([]);
});

it('holds no value that could be a secret', () => {
  const filled = [...entries()].flatMap(([name, vs]) => vs.filter((v) => v.value !== '').map((v) => ({ name, value: v.value, commentedOut: v.commentedOut })));
  // Only the local-model block has values, all commented out: a profile name, a URL and a model id.
  expect(filled.every((f) => f.commentedOut)).toBe(true);
  for (const f of filled) {
    expect(f.name).not.toMatch(/TOKEN|KEY|SECRET|PASSWORD/);
    expect(f.value).toMatch(/^(https?:\/\/[\w.:/-]+|[\w.:-]+)$/);
  }
  expect(example).not.toMatch(/\b(sk-|xox[bpa]-|xapp-)[\w-]{6,}/);
});
