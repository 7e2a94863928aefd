// A payment that waited for a third party (3-D Secure, an APM provider) is completed by its
// connector: the core passes on what the third party said and records what the connector
// answers, under the connector call's deadline. No answer (an error, none by the deadline, or a
// connector without that completion) leaves the payment waiting: the shopper can answer again
// once that answer has surely ended (its deadline and a margin, unknownAfterMs), and the expiry
// task fails it if nobody does. Claim first: the completion is marked as sent before the
// connector hears of it, because a lost answer may hide an approval (the shopper charged); the
// expiry task asks the processor about a marked payment before failing it. The claim lets one
// completion through at a time: two tabs' answers never both reach the processor.
import type { AuthenticationResult, AuthoriseOutcome } from '../../connectors/port.ts';
import { claimCompletion } from '../../db/repositories/payments.ts';
import { processorKeyOf, type PaymentStatus } from '../../domain/payment.ts';
import { accountEnabled } from '../accounts/enabled.ts';
import { callConnector } from '../batch/calls-in-flight.ts';
import { credentialsToSend } from '../merchants/connector.ts';
import type { Deps } from '../context.ts';
import type { Waiting } from './waiting.ts';

export async function connectorCompletion(
  deps: Deps,
  waiting: Waiting,
  kind: 'completeAuthentication' | 'completeRedirect',
  result: AuthenticationResult,
): Promise<AuthoriseOutcome | undefined> {
  const { payment, capture, reference } = waiting;
  const connector = deps.connectors.get(payment.connector);
  const complete = connector?.[kind];
  if (!connector || !complete) {
    deps.log.warn({ paymentId: payment.id, connector: payment.connector, kind }, 'the connector cannot complete this payment');
    return undefined;
  }
  // An operator's `merchants disable` stops payments as it refuses the API (4410): a shopper who
  // finishes a challenge or an issuer's page begun before it is not charged for a merchant that
  // no longer takes payments. Nothing is sent; the payment waits, and fails as abandoned at its
  // deadline unless the merchant is enabled again before it and the shopper answers again.
  if (!(await accountEnabled(deps.database.db, payment.accountId))) {
    deps.log.info({ paymentId: payment.id, kind }, 'completion not sent: the account or its merchant is disabled');
    return undefined;
  }
  // The account's credentials only while its connector is still the payment's (credentialsFor).
  // Unread (the database away): nothing is claimed nor sent, and the shopper can answer again.
  const credentials = await credentialsToSend(deps, payment.accountId, payment.connector);
  if (!credentials) return undefined;
  // Another answer of the shopper's (a second tab) may be with the processor: this one is not sent,
  // and the page shows the payment as it stands; the first answer's outcome is recorded as usual.
  if (!(await claimCompletion(deps.database.db, payment.id, payment.status as PaymentStatus, deps.wallClock.now(), deps.config.processor.unknownAfterMs))) {
    deps.log.info({ paymentId: payment.id, kind }, 'completion not sent: another one is with the processor');
    return undefined;
  }
  const answer = await callConnector(deps, (signal) =>
    complete.call(connector, { paymentId: payment.id, idempotencyKey: processorKeyOf(payment), reference, amount: { minor: payment.amount, currency: payment.currency }, capture, result, signal, credentials }),
  );
  if (!answer.ok) {
    deps.log.warn({ paymentId: payment.id, connector: payment.connector, kind: answer.error.kind }, 'completion outcome unknown');
    return undefined;
  }
  return answer.value;
}
