// A payment that waited for the shopper (a 3-D Secure challenge, an APM issuer page) gets its
// outcome from the shopper's side, long after the request that started it. This finds it still
// waiting, with what recording the outcome needs: the account, the risk decision it was made
// with, whether an approval captures, and the processor's reference.
import { accountById, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { RiskAction, RiskDecision } from '../../domain/risk.ts';
import type { Deps } from '../context.ts';
import type { AuthorisationContext } from './record-authorisation.ts';

export interface Waiting {
  readonly payment: PaymentRow;
  /** Records only while the payment still waits where it was found. */
  readonly context: AuthorisationContext;
  /** An approval captures: an auto-capture account, and risk accepted the payment. */
  readonly capture: boolean;
  readonly reference: string;
}

/** The payment, when it still waits in `status` and `accepts` it; null otherwise. */
export async function waitingPayment(
  deps: Pick<Deps, 'database'>,
  paymentId: string,
  status: PaymentStatus,
  accepts: (payment: PaymentRow) => boolean = () => true,
): Promise<Waiting | null> {
  const payment = await paymentById(deps.database.db, paymentId);
  if (!payment || payment.status !== status || !accepts(payment)) return null;
  const account = await accountById(deps.database.db, payment.accountId);
  if (!account) throw new Error(`account ${payment.accountId} of payment ${payment.id} not found`);
  const risk = storedRisk(payment);
  return {
    payment,
    context: { account, paymentId, current: payment, onlyFrom: [status], ...(risk ? { risk } : {}) },
    capture: account.captureMode === 'auto' && (risk === undefined || risk.action === 'accept'),
    reference: payment.connectorReference ?? payment.id,
  };
}

/** The risk decision recorded with the payment. */
export function storedRisk(payment: PaymentRow): RiskDecision | undefined {
  return payment.riskAction && payment.riskScore !== null
    ? { score: payment.riskScore, action: payment.riskAction as RiskAction, reasons: payment.riskReasons ?? [] }
    : undefined;
}
