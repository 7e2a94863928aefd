// `acquiro ledger check` proves the books balance and match the payments (exit 1 when not);
// `acquiro ledger balance` shows an account's balances per currency, derived from the ledger.
import { CommanderError, type Command } from 'commander';
import { accountDeps, show, table, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const check = () => import('../../app/ledger/check.ts');
const balance = () => import('../../app/ledger/balance.ts');

export function ledgerCommands(program: Command, ctx: CommandContext): void {
  const ledger = program.command('ledger').description('the double-entry books');
  ledger
    .command('check')
    .description('verify that every journal balances and every payment matches its books; exit code 1 on a violation')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { checkLedger } = await check();
      const report = await checkLedger(deps);
      show(ctx, Boolean(opts.json), report, () =>
        report.ok
          ? `ok: ${report.journals} journals balance, ${report.payments} payments match their books, ${report.balances} balances match their entries, ${report.payouts} payouts match their books`
          : table(report.violations.map((v) => ({ id: v.id, problem: v.problem, detail: v.detail }))),
      );
      if (!report.ok) throw new CommanderError(1, 'acquiro.ledger', `the ledger check found violations (${report.violations.length} shown)`);
    });
  ledger
    .command('balance')
    .description("an account's balances per currency: owed to the merchant, held, receivable, fees")
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: { merchantId: string; accountId: string; json?: boolean }) => {
      const deps = await accountDeps(ctx, opts);
      const { accountBalances } = await balance();
      const balances = await accountBalances(deps, opts.accountId);
      show(ctx, Boolean(opts.json), { account_id: opts.accountId, balances }, () => table(balances as unknown as Record<string, unknown>[]));
    });
}
