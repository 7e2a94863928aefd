// `acquiro disputes held`: the dispute reports the gateway could not place against a payment yet
// (docs/chargebacks.md, "Reports held"). Each poll of their feed offers them again; one that stays
// is for the operator to take up with the acquirer, and `disputes forget` lets go of it once that
// is settled. `acquiro disputes feeds`: the feeds the poll asks (docs/connectors.md, "Disputes").
import { CommanderError, type Command } from 'commander';
import { formatAmount } from '../../domain/money.ts';
import { show, table, type CommandContext } from '../io.ts';

// What the command runs, loaded when it is chosen (help needs only the options).
const held = () => import('../../db/repositories/held-disputes.ts');

export function disputeCommands(program: Command, ctx: CommandContext): void {
  const disputes = program.command('disputes').description("acquirers' dispute (chargeback) reports");
  disputes
    .command('held')
    .description('list the dispute reports not yet placed against a payment, the longest held first')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { listHeldReports } = await held();
      const rows = (await listHeldReports(deps.database.db)).map((row) => ({
        connector: row.connector,
        dispute_id: row.connectorDisputeId,
        stage: row.stage,
        payment_reference: row.paymentReference,
        amount: formatAmount(row.amount, row.currency),
        currency: row.currency,
        reason: row.skipReason,
        attempts: row.attempts,
        held_at: row.heldAt.toISOString(),
        tried_at: row.triedAt.toISOString(),
      }));
      show(ctx, Boolean(opts.json), rows, () => (rows.length === 0 ? 'no dispute report is held' : table(rows)));
    });
  disputes
    .command('feeds')
    .description("list the dispute feeds the poll asks: each connector's one, or one per merchant connection's credentials, with their accounts and when each was last polled, and those no account's credentials name any more")
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      if (!deps.connectors) throw new Error('the connectors are not loaded');
      const { listFeeds } = await import('../../app/disputes/feeds.ts');
      const listed = await listFeeds({ ...deps, connectors: deps.connectors });
      const { feeds, unopened, retired } = listed;
      const rows = feeds.map((feed) => ({
        connector: feed.connector,
        // The MAC's first characters tell feeds apart on a screen; --json gives it whole.
        feed: feed.feed === null ? "(the connector's)" : `${feed.feed.slice(0, 12)}…`,
        accounts: feed.by === 'connector' ? '(all)' : feed.accounts.join(', '),
        polled_at: feed.polled_at ?? 'never',
        leased_until: feed.leased_until ?? '',
      }));
      const left = unopened.map((account) => `account ${account.account_id} on ${account.connector}: its credentials cannot be opened (${account.error}); its feed is not polled`);
      const unasked = retired.map(
        (feed) => `feed ${feed.feed.slice(0, 12)}… on ${feed.connector}: no account's credentials name it now (last polled ${feed.polled_at?.toISOString() ?? 'never'}); not asked, its cursor kept`,
      );
      const human = () => [rows.length === 0 ? 'no connector in use polls disputes' : table(rows), ...left, ...unasked].join('\n');
      show(ctx, Boolean(opts.json), listed, human);
    });
  disputes
    .command('forget')
    .description('stop offering a held dispute report again (both its stages), once it is settled with the acquirer')
    .requiredOption('--connector <name>')
    .requiredOption('--dispute-id <id>', "the acquirer's dispute id, as `disputes held` lists it")
    .option('--json', 'print JSON')
    .action(async (opts: { connector: string; disputeId: string; json?: boolean }) => {
      const deps = await ctx.deps();
      const { forgetHeldDispute } = await held();
      const forgotten = await forgetHeldDispute(deps.database.db, opts.connector, opts.disputeId);
      if (forgotten === 0) throw new CommanderError(1, 'acquiro.disputes', `no held report of dispute ${opts.disputeId} on connector ${opts.connector}`);
      show(ctx, Boolean(opts.json), { connector: opts.connector, dispute_id: opts.disputeId, forgotten }, () => `forgot ${forgotten} held report(s) of dispute ${opts.disputeId}`);
    });
}
