/**
 * The agent vault `agent_state/.vault.toml` (engine.md §6.4): a flat TOML table of string values, keys
 * `^[A-Za-z_][A-Za-z0-9_]*$`, values ≤ 8192 chars, file mode 0600. Values only ever reach tool subprocess
 * environments; the prompt sees the key names. A missing file is an empty vault; an emptied vault removes
 * the file. Every write validates the whole table first, so a bad entry never reaches the disk.
 */
import { rm } from 'node:fs/promises';
import { describeValue, fail, ok, type StateIssue, type StateResult } from './errors';
import { atomicWrite, readIfExists, SECRET_MODE } from './files';
import { parseTomlText } from './parse-text';
import { stringifyToml } from './toml';

export const VAULT_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const VAULT_VALUE_MAX_CHARS = 8192;

export type Vault = Record<string, string>;

export function vaultIssues(table: Record<string, unknown>): StateIssue[] {
  const issues: StateIssue[] = [];
  for (const [key, value] of Object.entries(table)) {
    const path = VAULT_KEY_RE.test(key) ? key : JSON.stringify(key);
    if (!VAULT_KEY_RE.test(key)) {
      issues.push({ path, expected: 'a key matching ^[A-Za-z_][A-Za-z0-9_]*$ (a shell variable name)', found: `key ${JSON.stringify(key)}` });
      continue;
    }
    if (typeof value !== 'string') {
      issues.push({ path, expected: 'a string value', found: describeValue(value) });
      continue;
    }
    if (value.length > VAULT_VALUE_MAX_CHARS) {
      issues.push({ path, expected: `a value of at most ${VAULT_VALUE_MAX_CHARS} characters`, found: `${value.length} characters` });
    }
  }
  return issues;
}

export function parseVault(text: string, file: string): StateResult<Vault> {
  const parsed = parseTomlText(text, file);
  if (!parsed.ok) return parsed;
  const issues = vaultIssues(parsed.value);
  return issues.length > 0 ? fail(file, 'invalid', issues) : ok({ ...(parsed.value as Vault) });
}

export async function loadVault(file: string): Promise<StateResult<Vault>> {
  const text = await readIfExists(file);
  return text === undefined ? ok({}) : parseVault(text, file);
}

/** Replace the whole vault; an empty table deletes the file. */
export async function saveVault(file: string, vault: Vault): Promise<StateResult<Vault>> {
  const issues = vaultIssues(vault);
  if (issues.length > 0) return fail(file, 'invalid', issues);
  if (Object.keys(vault).length === 0) {
    await rm(file, { force: true });
    return ok({});
  }
  await atomicWrite(file, stringifyToml(vault) + '\n', SECRET_MODE);
  return ok({ ...vault });
}

/** Add or overwrite one entry. */
export async function setVaultEntry(file: string, key: string, value: string): Promise<StateResult<Vault>> {
  const single = vaultIssues({ [key]: value });
  if (single.length > 0) return fail(file, 'invalid', single);
  const current = await loadVault(file);
  if (!current.ok) return current;
  return saveVault(file, { ...current.value, [key]: value });
}

/** Remove one entry; removing a key that is absent writes nothing. */
export async function removeVaultEntry(file: string, key: string): Promise<StateResult<Vault>> {
  const current = await loadVault(file);
  if (!current.ok || !(key in current.value)) return current;
  const next = { ...current.value };
  delete next[key];
  return saveVault(file, next);
}

/** Key names only, sorted: what the prompt may see. */
export function vaultKeyNames(vault: Vault): string[] {
  return Object.keys(vault).sort();
}
