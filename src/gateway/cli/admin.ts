/**
 * `penguin-gateway admin set-password`: sets the dashboard's admin password (the admin token keeps working).
 * The password is read from standard input, never from the command line (which `ps` shows): on a terminal
 * it is asked twice without echo, otherwise the first line of the piped input is taken. It must be at least
 * 12 characters; only its scrypt hash is written, to `<data root>/admin-password` (0600). A running gateway
 * uses it at the next login. Too short, empty or mismatched: exit code 1, nothing written.
 */
import { mkdir } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, writePasswordHash } from '../admin/login';
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli } from './config';
import { EXIT_FAILED, EXIT_OK, UsageError, line, type CliIO } from './io';

/** The first line of piped input. */
async function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    if (text.includes('\n') || text.length > MAX_PASSWORD_LENGTH) break;
  }
  return text.split(/\r?\n/)[0];
}

/** Asks on the terminal with echo off (readline writes nothing of what is typed). */
function ask(stdin: NodeJS.ReadableStream, io: CliIO, prompt: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: stdin, output: undefined, terminal: true });
    io.stderr.write(prompt);
    rl.once('line', (answer) => {
      io.stderr.write('\n');
      rl.close();
      resolve(answer);
    });
  });
}

async function readPassword(io: CliIO): Promise<string | undefined> {
  const stdin = io.stdin;
  if (!stdin) return undefined;
  if (!stdin.isTTY) return firstLine(stdin);
  const first = await ask(stdin, io, 'New admin password: ');
  const again = await ask(stdin, io, 'Again: ');
  if (first !== again) throw new Error('the two passwords differ; nothing was changed');
  return first;
}

export async function adminCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [sub] = args.rest;
  if (sub !== 'set-password') throw new UsageError(sub === undefined ? 'admin needs a subcommand: set-password' : `unknown admin subcommand ${JSON.stringify(sub)} (set-password)`);
  expectNoMore(args, 1);
  const config = loadConfigForCli(args, io);
  if (!config) return EXIT_FAILED;
  const password = await readPassword(io);
  if (password === undefined || password === '') {
    line(io.stderr, 'penguin-gateway: no password given on standard input; nothing was changed');
    return EXIT_FAILED;
  }
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    line(io.stderr, `penguin-gateway: the password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters (it has ${password.length}); nothing was changed`);
    return EXIT_FAILED;
  }
  await mkdir(config.home, { recursive: true, mode: 0o700 });
  const file = await writePasswordHash(config.home, await hashPassword(password));
  line(io.stdout, `✓ admin password set (its scrypt hash is in ${file}); log in to the dashboard with it or with the admin token`);
  return EXIT_OK;
}
