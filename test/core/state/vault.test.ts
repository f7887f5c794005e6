import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadVault, parseVault, removeVaultEntry, saveVault, setVaultEntry, VAULT_VALUE_MAX_CHARS, vaultKeyNames } from '../../../src/core/state/vault';
import { exists } from '../../../src/core/state/files';
import { cleanupTempDirs, FIXTURE_AGENT_STATE, tempDir } from './helpers';

afterAll(cleanupTempDirs);
const FILE = '/data/p/agents/a/agent_state/.vault.toml';

function errorOf(toml: string) {
  const r = parseVault(toml, FILE);
  if (r.ok) throw new Error('expected an error');
  return r.error;
}

describe('.vault.toml', () => {
  it('loads the fixture and exposes only key names for the prompt', async () => {
    const r = await loadVault(join(FIXTURE_AGENT_STATE, '.vault.toml'));
    expect(r).toEqual({ ok: true, value: { GITHUB_TOKEN: 'ghp_fixture_token_value', API_BASE: 'https://api.example.com' } });
    if (r.ok) expect(vaultKeyNames(r.value)).toEqual(['API_BASE', 'GITHUB_TOKEN']);
  });

  it('treats a missing file as an empty vault', async () => {
    expect(await loadVault(join(await tempDir(), '.vault.toml'))).toEqual({ ok: true, value: {} });
  });

  it('reports a key that is not a shell variable name', () => {
    const e = errorOf('"2FA_CODE" = "x"\nOK = "y"\n');
    expect(e.issues).toEqual([{ path: '"2FA_CODE"', expected: 'a key matching ^[A-Za-z_][A-Za-z0-9_]*$ (a shell variable name)', found: 'key "2FA_CODE"' }]);
    expect(e.message).toBe(`${FILE}: "2FA_CODE": expected a key matching ^[A-Za-z_][A-Za-z0-9_]*$ (a shell variable name), found key "2FA_CODE"`);
  });

  it('reports non-string values and nested tables', () => {
    const e = errorOf('PORT = 8080\n[nested]\nA = "b"\n');
    expect(e.issues).toEqual([
      { path: 'PORT', expected: 'a string value', found: 'number 8080' },
      { path: 'nested', expected: 'a string value', found: 'a table with keys A' },
    ]);
  });

  it('reports an oversized value with its length', () => {
    const e = errorOf(`BIG = "${'x'.repeat(VAULT_VALUE_MAX_CHARS + 1)}"\nFITS = "${'y'.repeat(VAULT_VALUE_MAX_CHARS)}"\n`);
    expect(e.issues).toEqual([{ path: 'BIG', expected: 'a value of at most 8192 characters', found: '8193 characters' }]);
  });

  it('reports TOML syntax errors', () => {
    expect(errorOf('A = "unterminated\n').kind).toBe('syntax');
  });

  it('writes 0600, validates before writing, and removes the file when emptied', async () => {
    const file = join(await tempDir(), 'agent_state', '.vault.toml');
    expect((await setVaultEntry(file, 'API_KEY', 'secret "quoted"\nline')).ok).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadVault(file)).toEqual({ ok: true, value: { API_KEY: 'secret "quoted"\nline' } });

    const bad = await setVaultEntry(file, 'bad-key', 'v');
    expect(!bad.ok && bad.error.issues[0].path).toBe('"bad-key"');
    const big = await setVaultEntry(file, 'BIG', 'x'.repeat(9000));
    expect(!big.ok && big.error.issues[0]).toEqual({ path: 'BIG', expected: 'a value of at most 8192 characters', found: '9000 characters' });
    expect(await loadVault(file)).toEqual({ ok: true, value: { API_KEY: 'secret "quoted"\nline' } });

    await setVaultEntry(file, 'OTHER', 'o');
    expect(await removeVaultEntry(file, 'API_KEY')).toEqual({ ok: true, value: { OTHER: 'o' } });
    expect(await removeVaultEntry(file, 'MISSING')).toEqual({ ok: true, value: { OTHER: 'o' } });
    await removeVaultEntry(file, 'OTHER');
    expect(await exists(file)).toBe(false);
  });

  it('converges an existing file to 0600 on save', async () => {
    const file = join(await tempDir(), '.vault.toml');
    await writeFile(file, 'A = "1"\n', { mode: 0o644 });
    await saveVault(file, { A: '2' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('A = "2"');
  });
});
