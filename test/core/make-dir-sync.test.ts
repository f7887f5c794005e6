/**
 * makeDirSync: a session's directories made in one call, parents included, an existing directory accepted,
 * anything else in the way refused as mkdir refuses it.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirSync } from '../../src/core/make-dir-sync';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'make-dir-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

test('makes a directory under an existing parent, and its missing parents', () => {
  makeDirSync(join(root, 'a'));
  makeDirSync(join(root, 'b', 'c', 'd'));
  expect(statSync(join(root, 'a')).isDirectory()).toBe(true);
  expect(statSync(join(root, 'b', 'c', 'd')).isDirectory()).toBe(true);
});

test('an existing directory is fine', () => {
  makeDirSync(join(root, 'a'));
  expect(() => makeDirSync(join(root, 'a'))).not.toThrow();
});

test('a file in the way is refused with its errno code', () => {
  writeFileSync(join(root, 'f'), 'x');
  expect(() => makeDirSync(join(root, 'f'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
  expect(() => makeDirSync(join(root, 'f', 'below'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
});
