// APM payment, as a pipeline like the card one (the same steps): validate (the method's own needs
// included) → claim the order → assess risk (the shopper rules: no card here) → ask the processor
// for the issuer page, outside any transaction → record. The payment then waits for the shopper
// (requires_redirect) until the issuer page's answer, or until the method's deadline.
import { newId } from '../../domain/ids.ts';
import { claimWaitingPayment } from '../../db/repositories/checkout.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { claimOnce, decide } from '../authorise/steps.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import type { ApmMethod } from '../../connectors/port.ts';
import type { OrderDetails, OrderRecord } from '../payments/command.ts';
import { checkTimes } from '../clock/check-times.ts';

/**
 * An APM payment, built by its adapter (src/http/requests/apm-payment.ts parses the merchant's
 * body into one, with the method the account's connector offers under payment_method).
 */
export interface ApmCommand {
  readonly order: OrderDetails;
  readonly method: ApmMethod;
  readonly returnUrl: string;
  /** What the processor needs for the method (bank_code, person). */
  readonly methodData: Readonly<Record<string, unknown>>;
  /** What the payment keeps of the order. */
  readonly record: OrderRecord;
  /** What makes a repeat of this order the same request (see CardPaymentCommand.identity). */
  readonly identity: string;
}

export async function authoriseApm(deps: Deps, account: AccountRow, command: ApmCommand): Promise<PaymentRow> {
  const now = deps.clock.now();
  const { order, method } = command;
  assertNotifyTarget(deps.config, order.notifyUrl, 'notify_url');
  const requestFingerprint = deps.vault.fingerprint(command.identity);
  const row = {
    id: newId('T', now.getTime()),
    accountId: account.id,
    merchantId: account.merchantId,
    orderNo: order.orderNo,
    kind: 'apm' as const,
    paymentMethod: method.name,
    status: 'processing' as const,
    amount: order.amount.minor,
    currency: order.amount.currency,
    requestFingerprint,
    request: command.record,
    shopperEmail: order.shopperEmail ?? null,
    shopperIp: order.shopperIp ?? null,
    notifyUrl: order.notifyUrl ?? null,
    connector: account.connector,
    expiresAt: new Date(now.getTime() + method.ttlMinutes * 60_000),
  };
  const insert = () => claimWaitingPayment(deps.database.db, row, checkTimes(deps, now));
  return claimOnce(deps, account, { orderNo: order.orderNo, requestFingerprint, insert }, async (claimed) => {
    const instrument = { paymentMethod: method.name, methodData: command.methodData, returnUrl: command.returnUrl };
    const { context, outcome } = await decide(deps, account, order, claimed, instrument);
    return recordAuthorisation(deps, context, outcome);
  });
}
