/**
 * `penguin-gateway pairing approve|deny <code>` and `pairing list [--all]`: the operator's side of DM
 * pairing without the dashboard. The decision goes to the store (approving allowlists the user at once);
 * the running gateway tells the person within seconds (PairingNotifier). A malformed code is a usage error
 * (2); unknown, expired or already decided codes fail with exit code 1.
 */
import { decidePairingCode, normalizePairingCode, PAIRING_CODE_EXPECTED } from '../admin/pairing';
import type { PairingRow } from '../store';
import { expectNoMore, type CliArgs } from './args';
import { loadConfigForCli, withStore } from './config';
import { EXIT_FAILED, EXIT_OK, UsageError, line, type CliIO } from './io';

const who = (r: PairingRow) => `${r.platform} user ${r.user_id}${r.user_name ? ` (${r.user_name})` : ''}`;
const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function pairingCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [sub, code] = args.rest;
  if (sub === 'approve' || sub === 'deny') {
    if (code === undefined) throw new UsageError(`pairing ${sub} needs the code the user was given`);
    expectNoMore(args, 2);
    if (args.all) throw new UsageError('--all is an option of "pairing list" only');
    if (!normalizePairingCode(code)) throw new UsageError(`code: expected ${PAIRING_CODE_EXPECTED}, found ${JSON.stringify(code)}`);
    const config = loadConfigForCli(args, io);
    if (!config) return EXIT_FAILED;
    return withStore(config, io, async ({ store }) => {
      const out = await decidePairingCode(store, code, sub === 'approve' ? 'approved' : 'denied', null);
      if (!out.ok) {
        line(io.stderr, `penguin-gateway: ${out.message}`);
        return EXIT_FAILED;
      }
      const told = 'The running gateway tells them within a few seconds (or when it next starts).';
      if (sub === 'approve') line(io.stdout, `✓ approved ${out.row.code}: ${who(out.row)} is on the allowlist and may talk to the bot. ${told}`);
      else line(io.stdout, `✓ denied ${out.row.code}: ${who(out.row)} stays blocked. ${told}`);
      return EXIT_OK;
    });
  }
  if (sub === 'list') {
    expectNoMore(args, 1);
    const config = loadConfigForCli(args, io);
    if (!config) return EXIT_FAILED;
    return withStore(config, io, async ({ store }) => {
      const rows = await store.listPairings(args.all ? { limit: 1000 } : { state: 'pending', limit: 1000 });
      if (rows.length === 0) {
        line(io.stdout, args.all ? 'No pairing requests.' : 'No pending pairing requests.');
        return EXIT_OK;
      }
      for (const r of rows) line(io.stdout, `${r.code}  ${r.state.padEnd(8)}  ${who(r)}  requested ${when(r.created_at)}  expires ${when(r.expires_at)}`);
      return EXIT_OK;
    });
  }
  throw new UsageError(sub === undefined ? 'pairing needs a subcommand: approve <code>, deny <code> or list' : `unknown pairing subcommand ${JSON.stringify(sub)} (approve, deny or list)`);
}
