// Direct card payment, as a pipeline: validate → resolve the card → claim the order → assess risk
// → call the processor (outside any transaction) → record the outcome. The steps are shared with
// the hosted payment page and APM payments (steps.ts).
import { newId } from '../../domain/ids.ts';
import type { NewPayment } from '../../db/repositories/payments.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import { cardPaymentCommand, type CardPaymentBody, type CardPaymentCommand } from './request.ts';
import { cardColumns, claimOnce, decideCard, fingerprintRequest, resolveCard, type ResolvedCard } from './steps.ts';

/** Fields never kept with the stored request: the card group and the signature. */
const UNSTORED = new Set(['card', 'security_code', 'expiration_month', 'expiration_year', 'encryption_data', 'merchant_id', 'account_id']);

export async function authoriseCard(deps: Deps, account: AccountRow, body: CardPaymentBody): Promise<PaymentRow> {
  const command = cardPaymentCommand(body, deps.clock.now());
  const card = await resolveCard(deps, account, command.source);
  const requestFingerprint = fingerprintRequest(deps, body);

  const paymentId = newId('T', deps.clock.now().getTime());
  return claimOnce(deps, account, claimRow(account, command, card, paymentId, requestFingerprint, body), async (claimed) => {
    const { context, outcome } = await decideCard(deps, account, command, card, claimed);
    return recordAuthorisation(deps, context, outcome);
  });
}

function claimRow(
  account: AccountRow,
  command: CardPaymentCommand,
  card: ResolvedCard,
  id: string,
  requestFingerprint: string,
  body: CardPaymentBody,
): NewPayment {
  const stored = Object.fromEntries(Object.entries(body).filter(([key]) => !UNSTORED.has(key)));
  return {
    id,
    accountId: account.id,
    merchantId: account.merchantId,
    orderNo: command.orderNo,
    kind: 'card',
    paymentMethod: 'card',
    status: 'processing',
    amount: command.amount.minor,
    currency: command.amount.currency,
    requestFingerprint,
    request: stored,
    ...cardColumns(card),
    shopperEmail: command.shopperEmail ?? null,
    shopperIp: command.shopperIp ?? null,
    notifyUrl: command.notifyUrl ?? null,
    connector: account.connector,
  };
}
