// payments list|show: an operator's view of payments, across accounts, by the keys merchants quote.
import { Option, type Command } from 'commander';
import { formatAmount } from '../../domain/money.ts';
import { PAYMENT_STATUS_CODES, PAYMENT_STATUSES, orderStatus, type PaymentStatus } from '../../domain/payment.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { listLimit, MAX_LIST, show, table, usageError, type CommandContext } from '../io.ts';

// What the commands run, loaded when one of them is chosen (help needs only the options).
const listing = () => import('../../db/repositories/payment-listing.ts');
const events = () => import('../../app/payments/events.ts');

const DAY_MS = 86_400_000;
const TIME = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A bound of the time window, in UTC as created_at is written: a day alone is the whole day
 * (`--from` its first instant, `--to` its last), so `--from 2026-11-22 --to 2026-11-22` lists that
 * day; a time without an offset is UTC, whatever the host's zone. A day the calendar lacks
 * (2026-02-30, which Date reads as 2 March) is refused.
 */
function time(option: '--from' | '--to') {
  return (value: string) => {
    const match = TIME.exec(value);
    const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
    const start = Date.UTC(year, month - 1, day);
    const realDay = match !== null && new Date(start).getUTCMonth() === month - 1 && new Date(start).getUTCDate() === day;
    const date = !realDay ? new Date(NaN) : !match[4] ? new Date(option === '--to' ? start + DAY_MS - 1 : start) : new Date(match[7] ? value : `${value}Z`);
    if (Number.isNaN(date.getTime())) throw usageError(`${option} must be a date or time in ISO 8601, such as 2026-11-22 or 2026-11-22T10:15:00Z`);
    return date;
  };
}

/** One payment as both commands print it: amounts in the currency's units, the card masked (`card`). */
function summary(payment: PaymentRow, card: string) {
  return {
    transaction_id: payment.id,
    merchant_id: payment.merchantId,
    account_id: payment.accountId,
    order_no: payment.orderNo,
    status: payment.status,
    payment_status: PAYMENT_STATUS_CODES[payment.status as PaymentStatus],
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    payment_method: payment.paymentMethod,
    card,
    created_at: payment.createdAt.toISOString(),
  };
}

function details(payment: PaymentRow, card: string) {
  return {
    ...summary(payment, card),
    order_status: orderStatus(payment.status as PaymentStatus),
    result_info: payment.resultCode ? `${payment.resultCode}:${payment.resultMessage ?? ''}` : '',
    captured_amount: formatAmount(payment.capturedAmount, payment.currency),
    refunded_amount: formatAmount(payment.refundedAmount, payment.currency),
    connector: payment.connector,
    connector_reference: payment.connectorReference ?? '',
    risk_action: payment.riskAction ?? '',
    risk_score: payment.riskScore === null ? '' : String(payment.riskScore),
    threeds_result: payment.threedsResult ?? '',
    token_id: payment.tokenId ?? '',
    notify_url: payment.notifyUrl ?? '',
    updated_at: payment.updatedAt.toISOString(),
  };
}

interface ListOptions {
  merchantId?: string;
  accountId?: string;
  orderNo?: string;
  transactionId?: string;
  status?: PaymentStatus;
  from?: Date;
  to?: Date;
  limit: number;
  json?: boolean;
}

export function paymentCommands(program: Command, ctx: CommandContext): void {
  const payments = program.command('payments').description("look up payments (all accounts; the merchant's own view is /v1/retrievalTrans)");
  payments
    .command('list')
    .description('list payments, newest first, that match every filter given')
    .option('--merchant-id <id>')
    .option('--account-id <id>')
    .option('--order-no <order_no>', "the merchant's order number")
    .option('--transaction-id <id>', "the gateway's transaction_id")
    .addOption(new Option('--status <status>', 'the payment state (docs/states.md)').choices(PAYMENT_STATUSES))
    .option('--from <time>', 'created at or after (ISO 8601, UTC: 2026-11-22 from the start of that day, or 2026-11-22T10:15:00Z)', time('--from'))
    .option('--to <time>', 'created at or before (ISO 8601, UTC: 2026-11-22 to the end of that day)', time('--to'))
    .option('--limit <n>', `at most this many (up to ${MAX_LIST})`, listLimit, 50)
    .option('--json', 'print JSON')
    .action(async (opts: ListOptions) => {
      if (opts.from && opts.to && opts.from > opts.to) throw usageError('--from must not be after --to');
      const deps = await ctx.deps();
      const [{ requireNamed }, { listPayments }, { maskedCard }] = await Promise.all([import('../account.ts'), listing(), events()]);
      // A filter naming no merchant or account (or another merchant's) is refused, never listed as nothing (exit 1).
      await requireNamed(deps, { merchantId: opts.merchantId, accountId: opts.accountId });
      const rows = (await listPayments(deps.database.db, { ...opts })).map((payment) => summary(payment, maskedCard(payment)));
      show(ctx, Boolean(opts.json), rows, () =>
        table(rows.map(({ transaction_id, account_id, order_no, status, amount, currency, card, created_at }) => ({ transaction_id, account_id, order_no, status, amount, currency, card, created_at }))),
      );
    });
  payments
    .command('show')
    .description('one payment in full, with the events recorded about it')
    .argument('[transaction_id]', "the gateway's transaction_id")
    .option('--order-no <order_no>', 'find it by order number instead (with --account-id, without a transaction_id)')
    .option('--account-id <id>', 'the account the order number belongs to')
    .option('--json', 'print JSON')
    .action(async (transactionId: string | undefined, opts: { orderNo?: string; accountId?: string; json?: boolean }) => {
      // Both selectors may name two payments: showing one of them would be a guess.
      if (transactionId && (opts.orderNo !== undefined || opts.accountId !== undefined)) throw usageError('give a transaction_id, or --order-no with --account-id, not both');
      if (!transactionId && !(opts.orderNo && opts.accountId)) throw usageError('give a transaction_id, or --order-no with --account-id');
      const filter = transactionId ? { transactionId } : { orderNo: opts.orderNo!, accountId: opts.accountId! };
      const deps = await ctx.deps();
      const [{ listPayments, paymentEvents }, { maskedCard }] = await Promise.all([listing(), events()]);
      const [payment] = await listPayments(deps.database.db, { ...filter, limit: 1 });
      if (!payment) throw usageError(`no payment ${transactionId ?? `${opts.orderNo} on account ${opts.accountId}`}`, 1);
      const shown = { ...details(payment, maskedCard(payment)), events: await paymentEvents(deps.database.db, payment.id) };
      show(ctx, Boolean(opts.json), shown, () => {
        const { events, ...fields } = shown;
        const width = Math.max(...Object.keys(fields).map((key) => key.length));
        const lines = Object.entries(fields).map(([key, value]) => `${key.padEnd(width)}  ${value}`);
        return `${lines.join('\n')}\n\nevents\n${table(events)}`;
      });
    });
}
