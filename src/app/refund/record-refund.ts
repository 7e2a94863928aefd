// Records what the processor said about a claimed refund, in one short transaction under the
// refund's and the payment's locks (decided here, written by one statement): succeeded → the payment's refunded amount and state, the refund journal and the
// refund.succeeded event; failed → the reservation is freed and refund.failed is written; pending
// → asked again later by settlePendingRefunds, which moves it on the same way.
import type { OperationOutcome } from '../../connectors/port.ts';
import { CODES } from '../../domain/errors.ts';
import { refundEntries } from '../../domain/ledger.ts';
import { REFUND_MACHINE, statusAfterRefund } from '../../domain/lifecycle.ts';
import { PAYMENT_MACHINE } from '../../domain/payment.ts';
import { newId } from '../../domain/ids.ts';
import { journalRows } from '../../db/repositories/ledger.ts';
import { findPayment } from '../../db/repositories/payments.ts';
import { leaseDueRefunds, lockRefundAndPayment, settleRefund } from '../../db/repositories/refunds.ts';
import type { PaymentRow, RefundRow } from '../../db/schema.ts';
import { nextCheck } from '../capture/operation.ts';
import type { Deps } from '../context.ts';
import { UNKNOWN_AFTER_MS } from '../payments/resolve-unknown.ts';
import { refundEventPayload } from './refund-answer.ts';

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
  if (answer.status === 'unknown') return claimed;
  return deps.database.transaction(async (query) => {
    const locked = await lockRefundAndPayment(query, claimed.id);
    if (!locked) throw new Error(`refund ${claimed.id} lost its payment`);
    const { refund, payment } = locked;
    if (refund.status !== 'pending') return refund;
    const now = deps.clock.now();
    if (answer.status === 'pending') {
      const waiting = { ...refund, connectorReference: answer.reference, nextCheckAt: nextCheck(now, refund.attempts) };
      await settleRefund(query, { refundMove: REFUND_MACHINE.stay(refund.status), paymentMove: PAYMENT_MACHINE.stay(payment.status), refund: waiting, payment, ledger: [] });
      return waiting;
    }
    if (answer.status === 'succeeded') {
      const refunded = payment.refundedAmount + refund.amount;
      const paymentMove = PAYMENT_MACHINE.move(payment.status, statusAfterRefund(payment.capturedAmount, refunded));
      const refundMove = REFUND_MACHINE.move(refund.status, 'succeeded');
      const settled: RefundRow = {
        ...refund,
        status: 'succeeded',
        connectorReference: answer.reference,
        resultCode: CODES.success.code,
        resultMessage: CODES.success.message,
        settledAt: now,
      };
      const updated: PaymentRow = { ...payment, refundedAmount: refunded, status: paymentMove.to };
      await settleRefund(query, {
        refundMove,
        paymentMove,
        refund: settled,
        payment: updated,
        ledger: journalRows('refund', refundEntries(refund.amount)),
        event: { id: newId('EV'), type: 'refund.succeeded', payload: refundEventPayload('refund.succeeded', settled, updated) },
      });
      return settled;
    }
    // Failed: the reservation is freed, so the amount can be refunded again.
    const settled: RefundRow = {
      ...refund,
      status: 'failed',
      connectorReference: answer.reference ?? refund.connectorReference,
      resultCode: CODES.processor_refused.code,
      resultMessage: `refused by the processor: ${answer.reason}`,
      settledAt: now,
    };
    const updated: PaymentRow = { ...payment, refundReserved: payment.refundReserved - refund.amount };
    await settleRefund(query, {
      refundMove: REFUND_MACHINE.move(refund.status, 'failed'),
      paymentMove: PAYMENT_MACHINE.stay(payment.status),
      refund: settled,
      payment: updated,
      ledger: [],
      event: { id: newId('EV'), type: 'refund.failed', payload: refundEventPayload('refund.failed', settled, updated) },
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
