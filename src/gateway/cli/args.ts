/**
 * Command-line parsing for `penguin-gateway`: global options (`--config <path>`, `--help`, `--version`)
 * may sit before or after the command; command options are accepted only by the command they belong to.
 * Anything unknown, missing or extra is a UsageError (exit code 2).
 */
import { parseArgs } from 'node:util';
import { UsageError } from './io';

export interface CliArgs {
  command?: string;
  /** Positionals after the command. */
  rest: string[];
  config?: string;
  help: boolean;
  version: boolean;
  /** `pairing list --all`. */
  all: boolean;
  /** `doctor --timeout <ms>`. */
  timeoutMs?: number;
}

const OPTIONS = {
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  all: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

/** Which command may take which command option. */
const COMMAND_OPTIONS: Record<string, readonly string[]> = { all: ['pairing'], timeout: ['doctor'] };

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(cleanParseMessage((e as Error).message));
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  for (const [opt, commands] of Object.entries(COMMAND_OPTIONS)) {
    if (values[opt as keyof typeof values] !== undefined && (command === undefined || !commands.includes(command))) {
      throw new UsageError(`--${opt} is an option of ${commands.map((c) => `"${c}"`).join(', ')} only`);
    }
  }
  if (values.config !== undefined && values.config.trim() === '') throw new UsageError('--config needs a file path');
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    timeoutMs = /^\d{1,7}$/.test(values.timeout) ? Number(values.timeout) : NaN;
    if (!(timeoutMs >= 100 && timeoutMs <= 600_000)) throw new UsageError(`--timeout: expected milliseconds between 100 and 600000, found ${JSON.stringify(values.timeout)}`);
  }
  return {
    ...(command !== undefined ? { command } : {}),
    rest,
    ...(values.config !== undefined ? { config: values.config } : {}),
    help: values.help ?? false,
    version: values.version ?? false,
    all: values.all ?? false,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

/** node:util messages end with advice about `--` that does not apply to this CLI. */
function cleanParseMessage(m: string): string {
  return m.replace(/\. To specify a positional argument starting with a '-'.*$/s, '').replace(/^Unknown option/, 'unknown option').replace(/^Option/, 'option');
}

/** Refuses positionals a command does not take. */
export function expectNoMore(args: CliArgs, from = 0): void {
  const extra = args.rest.slice(from);
  if (extra.length > 0) throw new UsageError(`unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((a) => JSON.stringify(a)).join(' ')} after "${args.command}"`);
}
