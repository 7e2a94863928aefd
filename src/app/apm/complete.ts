// The shopper's answer on the issuer's page completes an APM payment: approved (captured when
// the account captures automatically and risk accepted it), declined (2001), or abandoned
// (2009). Recorded like every authorisation, with the merchant's event. Only APM payments that
// still wait for the shopper are touched: a hosted-page payment is never completed from here.
import type { AuthoriseOutcome } from '../../connectors/port.ts';
import { accountById, paymentById } from '../../db/repositories/checkout.ts';
import type { PaymentRow } from '../../db/schema.ts';
import type { RiskAction } from '../../domain/risk.ts';
import type { Deps } from '../context.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';

export type IssuerAnswer = 'approve' | 'decline' | 'abandon';

export async function completeApm(deps: Deps, paymentId: string, answer: IssuerAnswer): Promise<PaymentRow | null> {
  const payment = await paymentById(deps.database.db, paymentId);
  if (!payment || payment.kind !== 'apm' || payment.status !== 'requires_redirect') return payment;
  const account = await accountById(deps.database.db, payment.accountId);
  if (!account) throw new Error(`account ${payment.accountId} not found`);
  const risk =
    payment.riskAction && payment.riskScore !== null
      ? { score: payment.riskScore, action: payment.riskAction as RiskAction, reasons: payment.riskReasons ?? [] }
      : undefined;
  const reference = payment.connectorReference ?? payment.id;
  const outcome: AuthoriseOutcome =
    answer === 'approve'
      ? { status: 'approved', reference, captured: account.captureMode === 'auto' && risk?.action !== 'review' }
      : { status: 'declined', reason: answer === 'decline' ? 'generic' : 'abandoned', reference };
  return recordAuthorisation(deps, { account, paymentId, onlyFrom: ['requires_redirect'], ...(risk ? { risk } : {}) }, outcome);
}
