// APM payment, as a pipeline like the card one (the same steps): validate (the method's own needs
// included) → claim the order → assess risk (the shopper rules: no card here) → ask the processor
// for the issuer page, outside any transaction → record. The payment then waits for the shopper
// (requires_redirect) until the issuer page's answer, or until the method's deadline.
import { newId } from '../../domain/ids.ts';
import { claimWaitingPayment } from '../../db/repositories/checkout.ts';
import type { AccountRow, PaymentRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { claimOnce, decide, fingerprintRequest } from '../authorise/steps.ts';
import { assertNotifyTarget } from '../notifications/target.ts';
import { recordAuthorisation } from '../payments/record-authorisation.ts';
import { methodNamed } from './methods.ts';
import { apmCommand } from './request.ts';

export async function authoriseApm(deps: Deps, account: AccountRow, body: Record<string, unknown>): Promise<PaymentRow> {
  const now = deps.clock.now();
  const method = methodNamed(account, body.payment_method);
  const command = apmCommand(body, method, now);
  const { order } = command;
  assertNotifyTarget(deps.config, order.notifyUrl, 'notify_url');
  const requestFingerprint = fingerprintRequest(deps, body, 'apm');
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
    request: storedRequest(body),
    shopperEmail: order.shopperEmail ?? null,
    shopperIp: order.shopperIp ?? null,
    notifyUrl: order.notifyUrl ?? null,
    connector: account.connector,
    expiresAt: new Date(now.getTime() + method.ttlMinutes * 60_000),
  };
  const insert = () => claimWaitingPayment(deps.database.db, row, now);
  return claimOnce(deps, account, { orderNo: order.orderNo, requestFingerprint, insert }, async (claimed) => {
    const instrument = { paymentMethod: method.name, methodData: command.methodData, returnUrl: command.returnUrl };
    const { context, outcome } = await decide(deps, account, order, claimed, instrument);
    return recordAuthorisation(deps, context, outcome);
  });
}

/** The request as kept with the payment: no signature or ids, no uploaded document file. */
function storedRequest(body: Record<string, unknown>): Record<string, unknown> {
  const { encryption_data: _sig, merchant_id: _m, account_id: _a, ...rest } = body;
  const person = rest.person as Record<string, unknown> | undefined;
  const documents = person?.documents as Record<string, unknown> | undefined;
  if (documents?.file_data === undefined) return rest;
  const { file_data: _file, ...kept } = documents;
  return { ...rest, person: { ...person, documents: kept } };
}
