// `acquiro ledger check` proves the books balance and match the payments (exit 1 when not);
// `acquiro ledger balance` shows an account's balances per currency, derived from the ledger.
import { CommanderError, type Command } from 'commander';
import { accountBalances } from '../../app/ledger/balance.ts';
import { checkLedger } from '../../app/ledger/check.ts';
import { show, table, type CommandDeps, type Output } from '../io.ts';
import { requireAccount } from './merchants.ts';

export function ledgerCommands(program: Command, deps: CommandDeps, io: Output): void {
  const ledger = program.command('ledger').description('the double-entry books');
  ledger
    .command('check')
    .description('verify that every journal balances and every payment matches its books; exit code 1 on a violation')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const report = await checkLedger(deps);
      show(io, Boolean(opts.json), report, () =>
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
      await requireAccount(deps, opts.merchantId, opts.accountId);
      const balances = await accountBalances(deps, opts.accountId);
      show(io, Boolean(opts.json), { account_id: opts.accountId, balances }, () => table(balances as unknown as Record<string, unknown>[]));
    });
}
