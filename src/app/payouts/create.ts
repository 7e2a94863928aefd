// /v1/payout, as a pipeline: the command (checked by its adapter) → a repeat of request_id is
// answered with the payout as it stands (other fields: refused; its payment_date may have passed
// since) → a new one dated before today refused → the rate and the amounts →
// one unit of work that locks the balance row, decides (enough available: SCHEDULED or
// PROCESSING with amount_payer_pays reserved; not enough: FAILED with INSUFFICIENT_FUNDS, nothing
// moved, payout.failed notified), inserts the payout, reserves, journals. The rail is called
// later by the rail task (rail.ts), outside any transaction.
import { randomInt } from 'node:crypto';
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { formatAmount } from '../../domain/money.ts';
import { inverseRate, parseRate, PARITY, payoutAmounts, type FeeSchedule, type PayoutAmounts, type Rate } from '../../domain/payouts/amounts.ts';
import { routeOf } from '../../domain/payouts/clearing.ts';
import { dayOf, daysAfter, SCHEDULE_HORIZON_DAYS, utcDay } from '../../domain/payouts/dates.ts';
import { payoutFeeFor } from '../../domain/payouts/fees.ts';
import { FAILURE_TYPES, PAYOUT_MACHINE, type PayoutStatus } from '../../domain/payouts/status.ts';
import type { Entry } from '../../domain/state-machine.ts';
import { lockBalance, type BalanceRow } from '../../db/repositories/balances.ts';
import { rateText } from '../../db/repositories/fx-rates.ts';
import { currentPayoutFees, insertPayout, payoutByRequestId, type NewPayout } from '../../db/repositories/payouts.ts';
import type { AccountRow, PayoutRow } from '../../db/schema.ts';
import { runRawUnitOfWork } from '../../db/unit-of-work.ts';
import type { Deps } from '../context.ts';
import { fundsJournal, moveBalance, type FundsMovement } from '../balances/funds.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import type { PayoutCommand, RequestIdentities } from './command.ts';
import { payoutEventPayload } from './view.ts';

/** The payout `account` asked for, as recorded (or as it stands, for a repeat of its request_id). */
export async function createPayout(deps: Deps, account: AccountRow, command: PayoutCommand): Promise<PayoutRow> {
  assertNotifyTarget(deps.config, command.notifyUrl, 'notify_url');
  const same = fingerprintsOf(deps, command);
  const fingerprint = same[0]!;
  const existing = await payoutByRequestId(deps.database.query, account.id, command.requestId);
  if (existing) return sameRequest(existing, same);
  // The request's own reading of the clock, never a second one: today is the day it was read on.
  const now = command.receivedAt;
  assertSchedulable(command.paymentDate, dayOf(now));

  const fees = payoutFeeFor(await currentPayoutFees(deps.database.query, account.id), command.sourceCurrency);
  const amounts = amountsOf(command, fees, await rateFor(deps, command));
  const route = routeOf(command.method, command.bankCountry, command.paymentCurrency, amounts.transferPayment.minor);
  const scheduled = command.paymentDate > dayOf(now);
  const payout: NewPayout = {
    id: newId('PO', now.getTime()),
    accountId: account.id,
    merchantId: account.merchantId,
    requestId: command.requestId,
    requestFingerprint: fingerprint,
    request: command.record,
    shortReferenceId: shortReference(),
    paymentMethod: command.method,
    clearingSystem: 'rail' in route ? route.rail : command.bank.clearing,
    paymentDate: command.paymentDate,
    paymentCurrency: command.paymentCurrency,
    sourceCurrency: command.sourceCurrency,
    transferPayment: amounts.transferPayment.minor,
    transferSource: amounts.transferSource.minor,
    amountBeneficiaryReceives: amounts.amountBeneficiaryReceives.minor,
    amountPayerPays: amounts.amountPayerPays.minor,
    feeAmount: amounts.fee.minor,
    feeCurrency: amounts.fee.currency,
    feePaidBy: command.feePaidBy,
    fxRate: amounts.rate.text,
    failureType: null,
    failureReason: null,
    connector: account.connector,
    railReference: null,
    notifyUrl: command.notifyUrl ?? null,
    // Scheduled: due at midnight (UTC) of its payment date; today's: due at once.
    nextCheckAt: scheduled ? utcDay(command.paymentDate) : now,
    leasedUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  const funds: FundsMovement = { accountId: account.id, currency: command.sourceCurrency, amount: payout.amountPayerPays, key: payout.id };

  const recorded = await runRawUnitOfWork<BalanceRow, Entry<PayoutStatus>, PayoutRow | null>(deps.database, {
    lock: (query) => lockBalance(query, account.id, command.sourceCurrency),
    check: (balance) => ({ change: PAYOUT_MACHINE.enter(balance.available < payout.amountPayerPays ? 'FAILED' : scheduled ? 'SCHEDULED' : 'PROCESSING') }),
    async change(query, entry) {
      const failed = entry.to === 'FAILED';
      const row = await insertPayout(
        query,
        failed ? { ...payout, failureType: 'INSUFFICIENT_FUNDS', failureReason: FAILURE_TYPES.INSUFFICIENT_FUNDS, nextCheckAt: null } : payout,
        entry,
      );
      // Under the balance row's lock, a reservation the check allowed cannot be refused.
      if (row && !failed && !(await moveBalance(query, 'payout_reserve', funds))) throw new Error(`payout ${payout.id} could not reserve what the check saw available`);
      return row;
    },
    journal: (entry, row) => (row && entry.to !== 'FAILED' ? [fundsJournal('payout_reserve', funds, now)] : []),
    event: (entry, row) =>
      row && entry.to === 'FAILED' ? { accountId: account.id, type: 'payout.failed', payload: payoutEventPayload('payout.failed', row), notifyUrl: row.notifyUrl } : undefined,
  });
  if (recorded) return recorded;
  // A twin with this request_id committed first.
  return sameRequest((await payoutByRequestId(deps.database.query, account.id, command.requestId))!, same);
}

/**
 * The payout a refused request repeats, when one was recorded under `requestId` for the same
 * fields: the request's adapter refused it by a check added since, and a retry of a recorded
 * payout is answered with it, as a repeat sent after its payment_date is. Null when there is none,
 * and the refusal stands.
 */
export async function recordedRepeat(deps: Deps, account: AccountRow, requestId: string, identities: RequestIdentities): Promise<PayoutRow | null> {
  const existing = await payoutByRequestId(deps.database.query, account.id, requestId);
  return existing && fingerprintsOf(deps, identities).includes(existing.requestFingerprint) ? existing : null;
}

/** The fingerprints a payout of these fields may have been recorded under, its own first. */
function fingerprintsOf(deps: Deps, { identity, earlierIdentity }: RequestIdentities): string[] {
  return [identity, ...(earlierIdentity === undefined ? [] : [earlierIdentity])].map((text) => deps.vault.fingerprint(text));
}

/**
 * A new payout is dated from today to a year ahead (SCHEDULE_HORIZON_DAYS). Checked here, after the
 * repeat lookup, not by the adapter: the retry of a payout whose answer was lost may come after
 * its payment_date, and is answered with the payout, never refused as if nothing had been stored.
 * Today is the request's (the adapter's reading), so the default date, that today, always passes.
 */
function assertSchedulable(paymentDate: string, today: string): void {
  const last = daysAfter(today, SCHEDULE_HORIZON_DAYS);
  if (paymentDate < today || paymentDate > last) {
    throw new AppError('invalid_field', `payment_date is invalid: expected a date from today (${today}, UTC) to ${last}`, { field: 'payment_date' });
  }
}

/** `existing` when it was recorded for the same fields (`fingerprints`: what they may have been keyed as). */
function sameRequest(existing: PayoutRow, fingerprints: readonly string[]): PayoutRow {
  if (!fingerprints.includes(existing.requestFingerprint)) {
    throw new AppError('request_conflict', `request_id ${existing.requestId} was already used with different fields`, { field: 'request_id' });
  }
  return existing;
}

async function rateFor(deps: Deps, command: PayoutCommand): Promise<Rate> {
  if (command.sourceCurrency === command.paymentCurrency) return PARITY;
  // A pair configured one way only is read the other way too, at its inverse (docs/payouts.md).
  const found = await rateText(deps.database.query, command.sourceCurrency, command.paymentCurrency);
  const configured = found === null ? null : parseRate(found.text);
  const rate = configured && found?.inverse ? inverseRate(configured) : configured;
  if (!rate) {
    throw new AppError('fx_rate_unavailable', `source_currency ${command.sourceCurrency}: no exchange rate to ${command.paymentCurrency} (acquiro fx set)`, { field: 'source_currency' });
  }
  return rate;
}

function amountsOf(command: PayoutCommand, fees: FeeSchedule, rate: Rate): PayoutAmounts {
  const field = 'payment' in command.amount ? 'payment_amount' : 'source_amount';
  const result = payoutAmounts({
    ...command.amount,
    paymentCurrency: command.paymentCurrency,
    sourceCurrency: command.sourceCurrency,
    rate,
    fees,
    feePaidBy: command.feePaidBy,
    payerPaysSwiftCharge: command.payerPaysSwiftCharge,
  });
  if (!('problem' in result)) return result;
  const fixed = formatAmount(fees.fixedMinor, command.sourceCurrency);
  const why = {
    missing_rate: 'an amount in currencies with an exchange rate',
    fee_exceeds_transfer: `an amount larger than its fee (${fixed} ${command.sourceCurrency} + ${(fees.basisPoints / 100).toFixed(2)} %) when the beneficiary pays it`,
    rounds_to_zero: 'an amount that converts to at least one minor unit',
    too_large: 'a smaller amount',
  }[result.problem];
  throw new AppError('invalid_amount', `${field} is invalid: expected ${why}`, { field });
}

const REFERENCE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A short reference the beneficiary's statement can carry: 10 characters, no look-alikes. */
function shortReference(): string {
  let text = 'P';
  for (let i = 0; i < 9; i++) text += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return text;
}
