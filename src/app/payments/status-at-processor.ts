// Asking the processor what became of a payment whose outcome the gateway has not heard: the
// unknown-outcome sweeper (resolve-unknown.ts) and the expiry of a sent completion
// (src/app/apm/expire.ts) ask it the same way, under the connector call's deadline.
import { err, type AuthoriseOutcome, type Result } from '../../connectors/port.ts';
import type { PaymentRow } from '../../db/schema.ts';
import { processorKeyOf } from '../../domain/payment.ts';
import { callConnector } from '../batch/calls-in-flight.ts';
import { credentialsToSend } from '../merchants/connector.ts';
import type { Deps } from '../context.ts';

/**
 * The processor's answer about `payment`'s current attempt, by its id, the attempt's idempotency
 * key and the reference it gave, if any; undefined when its connector is not served here.
 */
export async function statusAtProcessor(deps: Deps, payment: PaymentRow): Promise<Result<AuthoriseOutcome> | undefined> {
  const connector = deps.connectors.get(payment.connector);
  if (!connector) return undefined;
  const credentials = await credentialsToSend(deps, payment.accountId, payment.connector);
  if (!credentials) return err({ kind: 'unavailable', message: 'the account could not be read' });
  return callConnector(deps, (signal) =>
    connector.paymentStatus({ paymentId: payment.id, idempotencyKey: processorKeyOf(payment), ...(payment.connectorReference ? { reference: payment.connectorReference } : {}), signal, credentials }),
  );
}
