// Records what the processor said about a claimed refund, in one transaction under the payment's
// lock: succeeded → the payment's refunded amount and state, the refund journal and the
// refund.succeeded event; failed → the reservation is freed and refund.failed is written; pending
// → asked again later by settlePendingRefunds, which moves it on the same way.
import type { OperationOutcome } from '../../connectors/port.ts';
import { CODES } from '../../domain/errors.ts';
import { refundEntries } from '../../domain/ledger.ts';
import { statusAfterRefund } from '../../domain/lifecycle.ts';
import { canMove, type PaymentStatus } from '../../domain/payment.ts';
import { recordEvent } from '../../db/repositories/events.ts';
import { postJournal } from '../../db/repositories/ledger.ts';
import { findPayment, lockPayment, updatePayment } from '../../db/repositories/payments.ts';
import { leaseDueRefunds, lockRefund, updateRefund } from '../../db/repositories/refunds.ts';
import type { RefundRow } from '../../db/schema.ts';
import { nextCheck } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { UNKNOWN_AFTER_MS } from '../payments/resolve-unknown.ts';
import { refundEventPayload, type RefundEventType } from './refund-answer.ts';

/** The processor's answer, or none that says what happened. */
export type RefundAnswer = OperationOutcome | { readonly status: 'unknown' };

export async function askRefund(deps: Deps, refund: RefundRow, connectorName: string, paymentReference: string | null): Promise<RefundAnswer> {
  const connector = deps.connectors.get(connectorName);
  if (!connector) {
    deps.log.error({ refundId: refund.id, connector: connectorName }, 'no such connector in this mode');
    return { status: 'failed', reason: 'the processor of this transaction is not available' };
  }
  const result = await (refund.connectorReference
    ? connector.refundStatus({ refundId: refund.id, reference: refund.connectorReference })
    : connector.refund({
        paymentId: refund.paymentId,
        reference: paymentReference ?? '',
        refundId: refund.id,
        amount: { minor: refund.amount, currency: refund.currency },
        ...(refund.reason ? { reason: refund.reason } : {}),
      })
  ).catch((error: unknown) => ({ ok: false as const, error: { kind: 'network' as const, message: String(error) } }));
  if (result.ok) return result.value;
  deps.log.warn({ refundId: refund.id, error: result.error.kind }, 'refund outcome unknown');
  return { status: 'unknown' };
}

export async function recordRefund(deps: Deps, claimed: RefundRow, answer: RefundAnswer): Promise<RefundRow> {
  return deps.database.db.transaction(async (tx) => {
    const payment = await lockPayment(tx, claimed.accountId, claimed.paymentId);
    const refund = await lockRefund(tx, claimed.id);
    if (!payment || !refund) throw new Error(`refund ${claimed.id} lost its payment`);
    if (refund.status !== 'pending') return refund;
    const now = deps.clock.now();
    let event: RefundEventType;
    let settled: RefundRow;
    let updatedPayment = payment;
    switch (answer.status) {
      case 'unknown':
        return refund;
      case 'pending':
        return updateRefund(tx, refund.id, { connectorReference: answer.reference, nextCheckAt: nextCheck(now, refund.attempts) });
      case 'succeeded': {
        const refunded = payment.refundedAmount + refund.amount;
        const status = statusAfterRefund(payment.capturedAmount, refunded);
        if (!canMove(payment.status as PaymentStatus, status)) throw new Error(`payment ${payment.id} cannot move from ${payment.status} to ${status}`);
        updatedPayment = await updatePayment(tx, payment.id, { refundedAmount: refunded, status });
        settled = await updateRefund(tx, refund.id, {
          status: 'succeeded',
          connectorReference: answer.reference,
          resultCode: CODES.success.code,
          resultMessage: CODES.success.message,
          settledAt: now,
        });
        await postJournal(tx, {
          accountId: payment.accountId,
          currency: payment.currency,
          kind: 'refund',
          paymentId: payment.id,
          referenceId: refund.id,
          entries: refundEntries(refund.amount),
        });
        event = 'refund.succeeded';
        break;
      }
      case 'failed':
        settled = await updateRefund(tx, refund.id, {
          status: 'failed',
          connectorReference: answer.reference ?? refund.connectorReference,
          resultCode: CODES.processor_refused.code,
          resultMessage: `refused by the processor: ${answer.reason}`,
          settledAt: now,
        });
        event = 'refund.failed';
        break;
    }
    await recordEvent(tx, {
      accountId: payment.accountId,
      type: event,
      paymentId: payment.id,
      payload: refundEventPayload(event, settled, updatedPayment),
      notifyUrl: payment.notifyUrl,
    });
    return settled;
  });
}

/**
 * Periodic task: refunds the processor settles later (or whose answer was lost) are asked about
 * again (refundStatus, or the same refund sent again when no reference came back) until they
 * succeed or fail.
 */
export async function settlePendingRefunds(deps: Deps, limit = 50): Promise<number> {
  const leased = await leaseDueRefunds(deps.database.db, deps.clock.now(), limit, UNKNOWN_AFTER_MS * 2);
  let settled = 0;
  for (const refund of leased) {
    const payment = await findPayment(deps.database.db, refund.accountId, refund.paymentId);
    if (!payment) continue;
    const after = await recordRefund(deps, refund, await askRefund(deps, refund, payment.connector, payment.connectorReference));
    if (after.status !== 'pending') settled += 1;
  }
  return settled;
}
