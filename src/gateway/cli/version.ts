/**
 * The package version for `--version`, read from the nearest package.json named `penguin-gateway` above
 * this module, which works both from the sources and from the compiled `dist/` tree.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function packageVersion(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'penguin-gateway' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No readable package.json here: keep walking up.
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
