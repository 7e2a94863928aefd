// Direct card payment, as a pipeline: validate (a date the request names that has passed — its
// contract_end, the card's expiry — or a CVC left out refuses only a new order_no; a repeat gets
// the stored outcome) → resolve the card → claim the order (and read the risk facts) → assess risk
// → call the processor (outside any transaction) → record the outcome. The steps are shared with
// the hosted payment page and APM payments (steps.ts).
import { AppError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { CheckTimes } from '../../domain/payment.ts';
import { claimPayment, storingNetworkTransactionId, type Claim } from '../../db/repositories/payments.ts';
import type { RiskRecord } from '../../db/repositories/risk.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import type { CardPaymentCommand, PaymentSource } from '../payments/command.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import { passedDate } from '../payments/passed-date.ts';
import { cardClaim, claimOnce, decide, repeatOrRefuse, resolveCard, riskProbe, type CardCharge, type ResolvedCard } from './steps.ts';
import { checkTimes } from '../clock/check-times.ts';

/**
 * A card payment, started by the shopper (a card or a vault token) or by the merchant alone (a
 * stored credential, no CVC). The command is built by its adapter: HTTP parses the merchant's
 * body into it (src/http/requests/card-payment.ts); a scheduler builds one directly.
 */
export async function authoriseCard(deps: Deps, account: AccountRow, command: CardPaymentCommand): Promise<PaymentRow> {
  if ((command.initiator === 'merchant') !== (command.source.kind === 'stored_credential')) {
    throw new Error('a merchant-initiated payment charges a stored credential, and only it does');
  }
  const requestFingerprint = deps.vault.fingerprint(command.identity);
  const refusal = passedDate(command, command.source, deps.clock.now()) ?? leftOutCvc(command.source);
  if (refusal) return repeatOrRefuse(deps, account, command.orderNo, requestFingerprint, refusal);
  assertNotifyTarget(deps.config, command.notifyUrl, 'notify_url');
  const card = await resolveCard(deps, account, command.source);

  const paymentId = newId('T', deps.clock.now().getTime());
  const claim = claimFor(account, command, card, paymentId, requestFingerprint, checkTimes(deps));
  // The claim reads the risk facts in the same statement: one round trip fewer on the hot path.
  let facts: RiskRecord | undefined;
  const insert = async () => {
    const claimed = await claimPayment(deps.database, claim, riskProbe(deps, account, command, paymentId, card));
    facts = claimed?.facts;
    return claimed?.payment ?? null;
  };
  return claimOnce(deps, account, { orderNo: command.orderNo, requestFingerprint, insert }, async (claimed) => {
    const charge = await chargeOf(deps, account, command, card);
    const { context, outcome } = await decide(deps, account, command, claimed, { card, charge }, facts);
    return recordAuthorisation(deps, context, outcome);
  });
}

/**
 * A card the shopper typed comes with its CVC, which is never kept: the retry of an accepted
 * order may leave it out (its identity has no CVC), and is answered with the stored outcome; a new
 * order without it is refused.
 */
function leftOutCvc(source: PaymentSource): AppError | undefined {
  if (source.kind !== 'card' || source.card.securityCode !== '') return undefined;
  return new AppError('missing_field', 'security_code is required (or token_id)', { field: 'security_code' });
}

/**
 * How the connector is to flag the charge. A merchant-initiated charge quotes the network
 * transaction id of the payment that stored the card: the command's, or else the one recorded
 * on that payment.
 */
async function chargeOf(deps: Deps, account: AccountRow, command: CardPaymentCommand, card: ResolvedCard): Promise<CardCharge> {
  const { source } = command;
  if (source.kind === 'card') return { initiator: 'shopper', ...(command.storeCard ? { storedCredential: { usage: 'first' } } : {}) };
  if (source.kind === 'token') return { initiator: 'shopper', storedCredential: { usage: 'subsequent' } };
  const networkTransactionId = source.networkTransactionId ?? (await storingNetworkTransactionId(deps.database.db, account.id, card.tokenId ?? source.tokenId));
  return { initiator: 'merchant', storedCredential: { usage: 'subsequent', ...(networkTransactionId ? { networkTransactionId } : {}) } };
}

function claimFor(account: AccountRow, command: CardPaymentCommand, card: ResolvedCard, id: string, requestFingerprint: string, at: CheckTimes): Claim {
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
    request: command.record,
    ...cardClaim(card),
    shopperEmail: command.shopperEmail ?? null,
    shopperIp: command.shopperIp ?? null,
    notifyUrl: command.notifyUrl ?? null,
    connector: account.connector,
    now: at.now,
    wallNow: at.wallNow,
    unknownAfterMs: at.unknownAfterMs,
  };
}
