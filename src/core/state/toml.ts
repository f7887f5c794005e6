/**
 * smol-toml, loaded through its CommonJS build: the package is ESM-typed, and this project compiles to
 * CommonJS, so the types come in by a type-only import while the code is `require`d.
 */
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const smol = require('smol-toml') as typeof SmolToml;

export const parseToml: typeof SmolToml.parse = smol.parse;
export const stringifyToml: typeof SmolToml.stringify = smol.stringify;
export const TomlError: typeof SmolToml.TomlError = smol.TomlError;
export type TomlDate = SmolToml.TomlDate;
export const TomlDate: typeof SmolToml.TomlDate = smol.TomlDate;
