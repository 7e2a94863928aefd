import { newId } from '../../domain/ids.ts';
import type { Executor } from '../client.ts';
import { events } from '../schema.ts';

export interface NewEvent {
  readonly accountId: string;
  readonly type: string;
  readonly paymentId?: string;
  readonly payload: Record<string, unknown>;
  readonly notifyUrl?: string | null;
}

/** Records an event in the caller's transaction: it exists if and only if the change commits. */
export async function recordEvent(tx: Executor, event: NewEvent): Promise<string> {
  const id = newId('EV');
  await tx.insert(events).values({
    id,
    accountId: event.accountId,
    type: event.type,
    paymentId: event.paymentId ?? null,
    payload: event.payload,
    notifyUrl: event.notifyUrl ?? null,
    // Nothing to deliver without a notify_url: recorded all the same, never picked by the workers.
    deliveryStatus: event.notifyUrl ? 'pending' : 'no_target',
  });
  return id;
}
