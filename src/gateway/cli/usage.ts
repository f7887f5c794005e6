/**
 * The help text: the overview printed for `--help` (stdout) and after a bad command line (stderr), and
 * one paragraph per command for `<command> --help` / `help <command>`.
 */

export const USAGE = `Usage: penguin-gateway <command> [options]

Commands:
  start                     run the gateway (chat adapters, admin API and dashboard)
  doctor                    check the config, data root, database, platform tokens and each agent's model
  reindex                   rebuild the session and usage index from the trace files
  migrate                   bring the gateway database to this release's schema
  pairing approve <code>    let the user who was given <code> talk to the bot
  pairing deny <code>       refuse a pairing request
  pairing list [--all]      show pending (or all) pairing requests
  admin set-password        set the dashboard's admin password (read from standard input)
  schedules list            every routed agent's schedules, invalid files with what is wrong
  schedules run <id>        run a schedule now (the running gateway starts it)

Options:
  --config <path>           config file (default: PENGUIN_GATEWAY_CONFIG, else config/gateway.yaml)
  -h, --help                show this help, or a command's help after the command
  -V, --version             print the version

Credentials and addresses come from the environment (PENGUIN_HOME, TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN,
DISCORD_BOT_TOKEN, OPENAI_API_KEY, ...); .env.example lists them all, config/gateway.yaml every setting.
`;

export const COMMAND_HELP: Record<string, string> = {
  start: `Usage: penguin-gateway start [--config <path>]

Validates the config (errors are printed and nothing is touched), then runs the gateway until SIGTERM or
SIGINT. On the first start without PENGUIN_ADMIN_TOKEN an admin token is generated and printed once.
Every start then sums up the dashboard URL, which adapters are off (and the variable that turns each on)
and whether each routed agent has a model endpoint: as text on a terminal, as log records otherwise.
`,
  doctor: `Usage: penguin-gateway doctor [--config <path>] [--timeout <ms>]

Checks the config, the data root and its free space, the database, the admin token, the listen
address, each configured platform token (one read-only API call each) and the model of each routed agent
(the gateway's own request: GET /models, else a one-token completion); prints what to fix and writes
nothing. Exit code 0 when no check fails. --timeout bounds each network check (default 10000 ms).
`,
  reindex: `Usage: penguin-gateway reindex [--config <path>]

Rebuilds the sessions and usage in gateway.db from the traces under PENGUIN_HOME. Safe to rerun.
`,
  migrate: `Usage: penguin-gateway migrate [--config <path>]

Applies pending schema migrations to gateway.db (start does this too) and prints the versions.
`,
  schedules: `Usage: penguin-gateway schedules list | run <id>

list shows the schedule files of every routed agent as the gateway reads them (invalid files with each
problem: file, key, expected, found), each one's next fire in its time zone and its last run. run queues a
run now (id <project>:<agent>:<name>, or the name when only one agent has it); the running gateway starts
it within seconds, after the schedule's run that is still going, if any.
`,
  pairing: `Usage: penguin-gateway pairing approve <code> | deny <code> | list [--all]

approve adds the requesting user to the allowlist; deny refuses the request; list shows pending
requests (--all: every request).
`,
  admin: `Usage: penguin-gateway admin set-password [--config <path>]

Sets the password the dashboard accepts besides the admin token. It is read from standard input (asked
twice without echo on a terminal, else the first line), must be at least 12 characters and is stored only
as an scrypt hash in <PENGUIN_HOME>/admin-password (mode 0600). Example:
  printf '%s\n' "$PASSWORD" | penguin-gateway admin set-password
`,
};
