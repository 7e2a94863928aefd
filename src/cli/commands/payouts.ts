// `acquiro payouts list|show|cancel`, `acquiro fx show|set` and `acquiro accounts payout-fees
// show|set|remove`: an account's payouts, the exchange rates payouts convert at, and each
// account's payout fees. docs/payouts.md.
import type { Command } from 'commander';
import type { PayoutFeesView } from '../../app/payouts/settings.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import { parseRate } from '../../domain/payouts/amounts.ts';
import { awaitsRail, PAYOUT_MACHINE } from '../../domain/payouts/status.ts';
import type { PayoutRow } from '../../db/schema.ts';
import { accountCommand, accountDeps, listLimit, MAX_LIST, show, table, usageError, type CommandContext } from '../io.ts';
import { currencyCode as currency, percentToBps, sub } from './account-settings.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const operator = () => import('../../app/payouts/operator.ts');
const settings = () => import('../../app/payouts/settings.ts');
const payoutView = () => import('../../app/payouts/view.ts');

interface AccountOpts {
  merchantId: string;
  accountId: string;
  json?: boolean;
}

function minorOf(option: string, text: string, code: string): number {
  if (/^0+(\.0+)?$/.test(text)) return 0;
  const parsed = parseAmount(text, code);
  if ('problem' in parsed) throw usageError(`${option} ${text} is not an amount in ${code}`);
  return parsed.minor;
}

const summary = (p: PayoutRow) => ({
  transaction_id: p.id,
  request_id: p.requestId,
  status: p.status,
  payment_date: p.paymentDate,
  amount_payer_pays: formatAmount(p.amountPayerPays, p.sourceCurrency),
  source_currency: p.sourceCurrency,
  amount_beneficiary_receives: formatAmount(p.amountBeneficiaryReceives, p.paymentCurrency),
  payment_currency: p.paymentCurrency,
  clearing: p.clearingSystem,
  failure_type: p.failureType ?? '',
});

function feesText(view: PayoutFeesView): string {
  const line = (code: string, fee: { fixed: number; bps: number; swift: number }) =>
    `${code}  ${formatAmount(fee.fixed, code)} + ${(fee.bps / 100).toFixed(2)}%, SWIFT charge ${formatAmount(fee.swift, code)}`;
  const own = Object.entries(view.currencies)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, fee]) => line(code, fee));
  return [...own, 'other currencies  1 unit of the currency + 0.50%, SWIFT charge 15 units (sandbox default)'].join('\n');
}

export function payoutCommands(program: Command, ctx: CommandContext): void {
  const payouts = program.command('payouts').description("an account's payouts (/v1/payout)");
  const payoutCommand = (name: string, description: string) => accountCommand(payouts, name, description);

  payoutCommand('list', 'the payouts, newest first')
    .option('--status <status>', `only this status (${PAYOUT_MACHINE.states.join(', ')})`)
    .option('--limit <n>', `at most this many (up to ${MAX_LIST})`, listLimit, 50)
    .option('--before <transaction_id>', 'only payouts created before this one (the next page)')
    .action(async (opts: AccountOpts & { status?: string; limit: number; before?: string }) => {
      if (opts.status !== undefined && !PAYOUT_MACHINE.isState(opts.status)) throw usageError(`--status ${opts.status} is not one of ${PAYOUT_MACHINE.states.join(', ')}`);
      const deps = await accountDeps(ctx, opts);
      const { payoutsOf, payoutsHeld, payoutOf } = await operator();
      // A cursor that names none of the account's payouts would list from the newest again: refused (exit 1).
      if (opts.before !== undefined) await payoutOf(deps, opts.accountId, opts.before);
      const rows = await payoutsOf(deps, opts.accountId, {
        limit: opts.limit,
        ...(opts.status ? { status: opts.status as PayoutRow['status'] } : {}),
        ...(opts.before ? { before: opts.before } : {}),
      });
      // Held: not sent while the account or its merchant is disabled (docs/payouts.md).
      const disabled = await payoutsHeld(deps, opts.accountId);
      const listed = rows.map((p) => ({ ...summary(p), held: disabled && awaitsRail(p) }));
      show(ctx, Boolean(opts.json), listed, () => (listed.length ? table(listed) : 'no payouts'));
    });

  payoutCommand('show', 'one payout, with every field of its answer')
    .requiredOption('--transaction-id <id>')
    .action(async (opts: AccountOpts & { transactionId: string }) => {
      const deps = await accountDeps(ctx, opts);
      const [{ payoutOf }, { payoutFields }] = await Promise.all([operator(), payoutView()]);
      const fields = payoutFields(await payoutOf(deps, opts.accountId, opts.transactionId));
      show(ctx, Boolean(opts.json), fields, () => JSON.stringify(fields, null, 2));
    });

  payoutCommand('cancel', 'cancel a SCHEDULED payout: its reservation returns to the available balance')
    .requiredOption('--transaction-id <id>')
    .action(async (opts: AccountOpts & { transactionId: string }) => {
      const deps = await accountDeps(ctx, opts);
      const { cancelPayout } = await operator();
      const cancelled = await cancelPayout(deps, opts.accountId, opts.transactionId);
      show(ctx, Boolean(opts.json), summary(cancelled), () => `payout ${cancelled.id} ${cancelled.status}`);
    });

  const fx = program.command('fx').description('the exchange rates payouts convert at: payment-currency units per source-currency unit');
  fx.command('show')
    .description('print the rate table')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const deps = await ctx.deps();
      const { showRates } = await settings();
      const rates = await showRates(deps);
      show(ctx, Boolean(opts.json), rates, () => table(rates as unknown as Record<string, unknown>[]));
    });
  fx.command('set')
    .description('set the rate from one currency to another')
    .requiredOption('--from <code>', 'the source (payer) currency')
    .requiredOption('--to <code>', 'the payment (beneficiary) currency')
    .requiredOption('--rate <decimal>', 'units of --to per unit of --from, e.g. 0.9213')
    .option('--json', 'print JSON')
    .action(async (opts: { from: string; to: string; rate: string; json?: boolean }) => {
      const [from, to] = [currency('--from', opts.from), currency('--to', opts.to)];
      if (from === to) throw usageError(`--from and --to are both ${from}: a rate is between two different currencies`);
      if (!parseRate(opts.rate)) throw usageError(`--rate ${opts.rate} is not a positive decimal such as 0.9213`);
      const deps = await ctx.deps();
      const { setFxRate } = await settings();
      const rate = await setFxRate(deps, from, to, opts.rate);
      show(ctx, Boolean(opts.json), rate, () => `1 ${rate.source_currency} = ${rate.rate} ${rate.payment_currency}`);
    });

  const fees = sub(program, 'accounts', 'accounts of a merchant').command('payout-fees').description('payout fees per source currency: fixed plus a percentage, and the SWIFT charge');
  const feeCommand = (name: string, description: string) => accountCommand(fees, name, description);
  feeCommand('show', "print the account's payout fees").action(async (opts: AccountOpts) => {
    const deps = await accountDeps(ctx, opts);
    const { showPayoutFees } = await settings();
    const view = await showPayoutFees(deps, opts.accountId);
    show(ctx, Boolean(opts.json), view, () => feesText(view));
  });
  feeCommand('set', 'set the payout fee of one source currency')
    .requiredOption('--currency <code>', 'ISO 4217 currency code')
    .option('--fixed <amount>', 'fixed part per payout, e.g. 1.00', '0')
    .option('--percent <p>', "percentage of the transfer's source amount, e.g. 0.5", '0')
    .option('--swift <amount>', 'the SWIFT charge, added when swift_charge_option is PAYER', '0')
    .action(async (opts: AccountOpts & { currency: string; fixed: string; percent: string; swift: string }) => {
      const code = currency('--currency', opts.currency);
      const fee = { fixed: minorOf('--fixed', opts.fixed, code), bps: percentToBps(opts.percent), swift: minorOf('--swift', opts.swift, code) };
      const deps = await accountDeps(ctx, opts);
      const { setPayoutFee } = await settings();
      const { had: _had, ...view } = await setPayoutFee(deps, opts.accountId, code, fee);
      show(ctx, Boolean(opts.json), view, () => feesText(view));
    });
  feeCommand('remove', "remove one currency's payout fee: it pays the sandbox default again")
    .requiredOption('--currency <code>', 'ISO 4217 currency code')
    .action(async (opts: AccountOpts & { currency: string }) => {
      const code = currency('--currency', opts.currency);
      const deps = await accountDeps(ctx, opts);
      const { removePayoutFee } = await settings();
      const result = await removePayoutFee(deps, opts.accountId, code);
      // As accounts fees remove: a currency with no payout fee (a typo) is said, not taken for removed.
      const said = result.removed ? `removed the ${code} payout fee: it pays the sandbox default` : `${code} had no payout fee of its own: nothing removed`;
      show(ctx, Boolean(opts.json), result, () => `${said}\n${feesText(result)}`);
    });
}
