// `acquiro balance show|topup`: an account's balances per currency (available, pending,
// reserved), and sandbox funding of the available balance. docs/ledger.md, Balances.
import type { Command } from 'commander';
import { isCurrency, parseAmount } from '../../domain/money.ts';
import { accountDeps, show, table, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const balances = () => import('../../app/balances/balances.ts');

interface AccountOpts {
  merchantId: string;
  accountId: string;
  json?: boolean;
}

export function balanceCommands(program: Command, ctx: CommandContext): void {
  const balance = program.command('balance').description("an account's balances per currency: available, pending, reserved");
  balance
    .command('show')
    .description('print the balances per currency')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .option('--json', 'print JSON')
    .action(async (opts: AccountOpts) => {
      const deps = await accountDeps(ctx, opts);
      const { showBalances } = await balances();
      const rows = await showBalances(deps, opts.accountId);
      show(ctx, Boolean(opts.json), rows, () => table(rows as unknown as Record<string, unknown>[]));
    });
  balance
    .command('topup')
    .description('credit the available balance with sandbox money (refused in live mode)')
    .requiredOption('--merchant-id <id>')
    .requiredOption('--account-id <id>')
    .requiredOption('--currency <code>', 'ISO 4217 currency code')
    .requiredOption('--amount <decimal>', 'amount, e.g. 1000.00')
    .option('--json', 'print JSON')
    .action(async (opts: AccountOpts & { currency: string; amount: string }) => {
      if (!isCurrency(opts.currency)) throw usageError(`--currency ${opts.currency} is not an ISO 4217 currency code`);
      const parsed = parseAmount(opts.amount, opts.currency);
      if ('problem' in parsed) throw usageError(`--amount ${opts.amount} is not a positive amount in ${opts.currency}`);
      const deps = await accountDeps(ctx, opts);
      const { topUp } = await balances();
      const shown = await topUp(deps, opts.accountId, opts.currency, parsed.minor);
      show(ctx, Boolean(opts.json), shown, () => `${shown.currency} available ${shown.available}, pending ${shown.pending}, reserved ${shown.reserved}`);
    });
}
