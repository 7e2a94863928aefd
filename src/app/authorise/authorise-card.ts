// Direct card payment, as a pipeline: validate → resolve the card → claim the order (and read the
// risk facts) → assess risk
// → call the processor (outside any transaction) → record the outcome. The steps are shared with
// the hosted payment page and APM payments (steps.ts).
import { newId } from '../../domain/ids.ts';
import { claimPayment, type Claim } from '../../db/repositories/payments.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import { cardPaymentCommand, type CardPaymentBody, type CardPaymentCommand } from './request.ts';
import type { RiskRecord } from '../../db/repositories/risk.ts';
import { cardClaim, claimOnce, decide, fingerprintRequest, resolveCard, riskProbe, type ResolvedCard } from './steps.ts';

/** Fields never kept with the stored request: the card group and the signature. */
const UNSTORED = new Set(['card', 'security_code', 'expiration_month', 'expiration_year', 'encryption_data', 'merchant_id', 'account_id']);

export async function authoriseCard(deps: Deps, account: AccountRow, body: CardPaymentBody): Promise<PaymentRow> {
  const command = cardPaymentCommand(body, deps.clock.now());
  assertNotifyTarget(deps.config, command.notifyUrl, 'notify_url');
  const card = await resolveCard(deps, account, command.source);
  const requestFingerprint = fingerprintRequest(deps, body);

  const paymentId = newId('T', deps.clock.now().getTime());
  const claim = claimFor(account, command, card, paymentId, requestFingerprint, body, deps.clock.now());
  // The claim reads the risk facts in the same statement: one round trip fewer on the hot path.
  let facts: RiskRecord | undefined;
  const insert = async () => {
    const claimed = await claimPayment(deps.database, claim, riskProbe(deps, account, command, paymentId, card));
    facts = claimed?.facts;
    return claimed?.payment ?? null;
  };
  return claimOnce(deps, account, { orderNo: command.orderNo, requestFingerprint, insert }, async (claimed) => {
    const { context, outcome } = await decide(deps, account, command, claimed, { card }, facts);
    return recordAuthorisation(deps, context, outcome);
  });
}

function claimFor(
  account: AccountRow,
  command: CardPaymentCommand,
  card: ResolvedCard,
  id: string,
  requestFingerprint: string,
  body: CardPaymentBody,
  now: Date,
): Claim {
  const stored = Object.fromEntries(Object.entries(body).filter(([key]) => !UNSTORED.has(key)));
  return {
    id,
    accountId: account.id,
    merchantId: account.merchantId,
    orderNo: command.orderNo,
    kind: 'card',
    paymentMethod: 'card',
    amount: command.amount.minor,
    currency: command.amount.currency,
    requestFingerprint,
    request: stored,
    ...cardClaim(card),
    shopperEmail: command.shopperEmail ?? null,
    shopperIp: command.shopperIp ?? null,
    notifyUrl: command.notifyUrl ?? null,
    connector: account.connector,
    now,
  };
}
