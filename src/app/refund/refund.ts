// /v1/refund: refunds captured money, partly and more than once. Each order names its
// transaction (transaction_id, order_no, currency and amount as the transaction has them) and
// the refund_amount. Pipeline, for a wave of orders on different transactions at once: claim (a
// pending refund, which counts against the captured amount at once; only a refused claim is
// checked step by step, to say why) → processor (each connector's calls at most as many at once as
// it accepts) → record (record-refund.ts).
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { refusalFor, startsFrom } from '../../domain/lifecycle.ts';
import { formatAmount } from '../../domain/money.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import { openDisputedAmount } from '../../db/repositories/disputes.ts';
import { claimRefunds, refundByRequestKey, type ClaimedRefund, type RefundClaim } from '../../db/repositories/refunds.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import type { AccountRow, PaymentRow, RefundRow } from '../../db/schema.ts';
import { callLimitOf } from '../../connectors/port.ts';
import { batchCallLimit, inFanOut, mapBounded } from '../batch/calls-in-flight.ts';
import { assertSameAmount, assertSameCurrency, lockOrder, metDatabaseAway, orderRefusal, refuse, type OrderRef } from '../batch/orders.ts';
import type { Deps } from '../context.ts';
import { assertNoLiveOperation } from '../capture/operation.ts';
import { askRefund, recordRefunds, type RefundToRecord } from './record-refund.ts';

/** One refund order, as its adapter built it (src/http/batch/operations.ts parses /v1/refund's). */
export interface RefundOrder extends OrderRef {
  /** Minor units of the order's currency. */
  readonly refundAmount: number;
  readonly reason?: string;
}

/**
 * Refunds `order.refundAmount` of one captured payment of `account`; throws the refusal when the
 * order cannot be refunded, or the database's error when it was away before the refund was claimed.
 */
export async function refund(deps: Deps, account: AccountRow, order: RefundOrder): Promise<RefundRow> {
  const [result] = await refundWave(deps, account, [order]);
  // The database away: thrown as it came, so a page answers it as such (503), not as a refusal.
  if (result instanceof AppError) throw metDatabaseAway(result) && result.cause !== undefined ? result.cause : result;
  return result!;
}

/**
 * Refunds a wave of orders, each on a different payment of `account`, in three steps whatever the
 * wave's size: the claims in one statement (claimRefunds: each a pending refund that counts
 * against the captured amount at once, committed before the processor hears of it); the processor
 * asked about every claimed refund, outside any transaction, as many at once as its connector
 * accepts (askAll); the answers recorded in one unit of work (recordRefunds). Answers each order's
 * refund, or its refusal, in the orders' order. Only the orders the claim did not take are
 * checked one by one, to say why. An order of a keyed
 * request claims at most one refund under its `requestKey`; run again (its request taken over
 * after the first died), it answers that refund.
 */
export async function refundWave(deps: Deps, account: AccountRow, orders: readonly RefundOrder[]): Promise<(RefundRow | AppError)[]> {
  if (new Set(orders.map((o) => o.transactionId)).size !== orders.length) throw new Error('refundWave: two orders on one transaction');
  const results: (RefundRow | AppError)[] = new Array(orders.length);
  const claimed: { index: number; claim: ClaimedRefund }[] = [];
  let unclaimed = orders.map((_, index) => index);
  // Turns are counted on the least limit of the connectors these payments were taken on (an account
  // routed to another connector since leaves them on the old one, where askAll sends them).
  const limit = await batchCallLimit(deps, account, orders.map((o) => o.transactionId));
  for (let attempt = 0; attempt < 3 && unclaimed.length > 0; attempt++) {
    // A claim's call waits behind those of the claims before it, `limit` at a time.
    const turnOf = (i: number) => Math.floor((claimed.length + i) / limit);
    let claims: Awaited<ReturnType<typeof claimRefunds>>;
    try {
      claims = await claimRefunds(deps.database, unclaimed.map((index, i) => claimOf(deps, account, orders[index]!, turnOf(i))));
    } catch (error) {
      // The database away before any claim: nothing of the wave was stored (thrown on). After some
      // claims of an earlier try: those go on to the processor; the orders still unclaimed are 9503.
      if (claimed.length === 0 || !isDatabaseUnavailable(error)) throw error;
      for (const index of unclaimed) results[index] = orderRefusal(error, deps.log, 'claiming a refund failed', {});
      unclaimed = [];
      break;
    }
    const refusedNow = unclaimed.filter((index, i) => {
      const claim = claims[i];
      // Claimed alone after a key clash, and failed: that order alone is refused; the others' claims stand.
      if (claim && 'failure' in claim) {
        results[index] = orderRefusal(claim.failure, deps.log, 'claiming a refund failed', { transactionId: orders[index]!.transactionId });
        return false;
      }
      if (claim) claimed.push({ index, claim });
      return !claim;
    });
    // Each order not claimed is looked at on its own; one that turns out refundable (it changed meanwhile) is claimed again.
    const answers = await Promise.all(refusedNow.map((index) => notClaimed(deps, account, orders[index]!)));
    unclaimed = refusedNow.filter((index, i) => {
      const answer = answers[i];
      if (answer) results[index] = answer;
      return !answer;
    });
  }
  for (const index of unclaimed) results[index] = new AppError('operation_in_progress', 'the transaction kept changing while the refund was claimed: try again');

  const asked = await askAll(deps, account, claimed.map(({ claim }) => claim));
  const recorded = await recordWave(deps, asked);
  claimed.forEach(({ index }, i) => (results[index] = recorded[i]!));
  return results;
}

/**
 * Why an order was not claimed: a keyed request taken over from a dead one finds the refund the
 * order claimed then, its answer as it stands (a pending one is asked about by
 * settlePendingRefunds; asking now could race its call); otherwise the refusal the order
 * deserves, or null when it turns out refundable after all.
 */
async function notClaimed(deps: Deps, account: AccountRow, order: RefundOrder): Promise<RefundRow | AppError | null> {
  try {
    const earlier = order.requestKey ? await refundByRequestKey(deps.database.db, account.id, order.requestKey) : null;
    if (earlier) return earlier;
    await explainRefusal(deps, account, order);
    return null;
  } catch (error) {
    // That order alone is refused; the wave's other claims stand and go on.
    return orderRefusal(error, deps.log, 'explaining a refund refusal failed', { transactionId: order.transactionId });
  }
}

/**
 * The processor asked about every claimed refund, outside any transaction: each connector's
 * refunds at most as many at once as it accepts (`maxCallsInFlight`), the next asked as soon as one
 * is answered. Answers them in the claims' order.
 */
async function askAll(deps: Deps, account: AccountRow, claims: readonly ClaimedRefund[]): Promise<RefundToRecord[]> {
  const asked: RefundToRecord[] = new Array(claims.length);
  const byConnector = Map.groupBy(claims.map((claim, index) => ({ claim, index })), ({ claim }) => claim.connector);
  await Promise.all(
    [...byConnector].map(([name, group]) => {
      const limit = callLimitOf(deps.connectors.get(name));
      // A call past its deadline keeps its slot until the connector lets go of it (callConnector).
      const fanOut = inFanOut(deps, limit);
      return mapBounded(group, limit, async ({ claim, index }) => {
        asked[index] = { claimed: claim.refund, answer: await askRefund(fanOut, claim.refund, claim.connector, claim.paymentReference, account) };
      });
    }),
  );
  return asked;
}

/**
 * `turn`: how many rounds of the connector's calls go before this refund's (0 when the wave fits
 * in what the connector accepts at once). Its first check waits that many call timeouts more: a
 * refund whose call waits its turn is not asked about by the sweeper sooner after its call starts
 * than one asked at once.
 */
function claimOf(deps: Deps, account: AccountRow, order: RefundOrder, turn: number): RefundClaim {
  const now = deps.clock.now();
  const { unknownAfterMs, callTimeoutMs } = deps.config.processor;
  return {
    id: newId('RF', now.getTime()),
    accountId: account.id,
    transactionId: order.transactionId,
    orderNo: order.orderNo,
    currency: order.currency,
    amount: order.amount,
    refundAmount: order.refundAmount,
    reason: order.reason ?? null,
    refundableFrom: startsFrom('refund'),
    // Wall time: a technical timer, not hurried by the test clock.
    nextCheckAt: new Date(deps.wallClock.now().getTime() + unknownAfterMs + turn * callTimeoutMs),
    createdAt: now,
    ...(order.requestKey ? { requestKey: order.requestKey } : {}),
  };
}

/**
 * Records the wave's answers in one unit of work. If that fails, each is recorded on its own, so
 * one refund's failure leaves only that refund as claimed: pending, answered as such, and settled
 * by the sweeper (settlePendingRefunds). The database away: every refund of the wave is left as
 * claimed, pending (the processor was asked: it may have refunded; never answered 9503, which
 * would tell the merchant that nothing was done).
 */
async function recordWave(deps: Deps, asked: readonly RefundToRecord[]): Promise<RefundRow[]> {
  const leftPending = () => {
    deps.log.warn({ code: '9503', refunds: asked.length }, 'database unavailable: refunds asked of the processor left pending for the sweeper');
    return asked.map((r) => r.claimed);
  };
  try {
    return await recordRefunds(deps, asked);
  } catch (error) {
    if (isDatabaseUnavailable(error)) return leftPending();
    deps.log.error({ err: error, refunds: asked.length }, 'recording refunds failed: each is recorded on its own');
  }
  if (asked.length === 1) return asked.map((r) => r.claimed);
  return Promise.all(
    asked.map((one) =>
      recordRefunds(deps, [one]).then(
        ([recorded]) => recorded!,
        (error: unknown) => {
          if (!isDatabaseUnavailable(error)) deps.log.error({ err: error, refundId: one.claimed.id }, 'recording a refund failed: left pending for the sweeper');
          return one.claimed;
        },
      ),
    ),
  );
}

const UNCAPTURED_HOLDS: readonly PaymentStatus[] = ['authorised', 'pending_review'];

/** Throws the refusal the order deserves; returns when it turns out refundable (it changed meanwhile). */
async function explainRefusal(deps: Deps, account: AccountRow, order: RefundOrder): Promise<void> {
  await deps.database.db.transaction(async (tx) => {
    const payment = await lockOrder(tx, account.id, order);
    assertSameCurrency(payment, order);
    assertSameAmount(payment, order);
    // Not captured yet, but a capture or void of it is under way: say so (5012), rather than to cancel it.
    if (UNCAPTURED_HOLDS.includes(payment.status as PaymentStatus)) await assertNoLiveOperation(tx, payment.id);
    refuse(refusalFor('refund', payment.status as PaymentStatus));
    assertRefundable(payment, order.refundAmount, payment.refundReserved, await openDisputedAmount(tx, payment.id));
  });
}

/**
 * What is left to refund: the captured amount less the refunds succeeded or pending (`reserved`)
 * and less what open chargebacks took back (`disputed`): that money is with the shopper already.
 */
function assertRefundable(payment: PaymentRow, amount: number, reserved: number, disputed: number): void {
  const left = payment.capturedAmount - reserved - disputed;
  if (amount <= left) return;
  const money = (minor: number) => formatAmount(minor, payment.currency);
  const captured = money(payment.capturedAmount);
  throw new AppError(
    'refund_exceeds_captured',
    left <= 0
      ? disputed > 0
        ? `nothing left to refund: ${captured} captured, all of it refunded, being refunded or taken back by an open chargeback (${money(disputed)})`
        : `nothing left to refund: ${captured} captured, all of it refunded or being refunded`
      : `refund_amount ${money(amount)} exceeds the ${money(left)} left to refund of ${captured} captured${disputed > 0 ? ` (${money(disputed)} taken back by an open chargeback)` : ''}`,
    { field: 'refund_amount' },
  );
}
