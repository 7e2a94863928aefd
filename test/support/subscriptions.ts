// Helpers of the subscription tests: a payment that begins one, the billing sweeper run until it
// has nothing left to do (as a worker would within seconds), and the rows a merchant's view shows.
import { expect } from 'vitest';
import { billSubscriptions } from '../../src/app/subscriptions/bill.ts';
import { resolveUnknownPayments } from '../../src/app/payments/resolve-unknown.ts';
import type { Deps } from '../../src/app/context.ts';
import type { SignedClient } from './client.ts';
import { cardPayment } from './fixtures.ts';
import { review } from './lifecycle.ts';

export const MONTHLY = { contract_name: 'Gold plan', contract_amount: '10.00', interval: 'month' } as const;

/** A card payment that begins a subscription (approved unless overridden). */
export function subscribing(client: SignedClient, subscription: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  return cardPayment(client.ids, { amount: '10.00', subscription: { ...MONTHLY, ...subscription }, ...overrides });
}

/** The review test card: risk holds every payment of it for review, a subscription's charges included. */
export const REVIEW_CARD = '4000000000004954';

/** A subscription (monthly unless `terms` say otherwise) begun by a payment of the review card, approved on review: each of its charges is held too. */
export async function heldSubscription(client: SignedClient, terms: Record<string, unknown> = {}): Promise<string> {
  const body = subscribing(client, terms, { card: REVIEW_CARD, notify_url: 'http://127.0.0.1:9/hook' });
  const held = await client.post('/v1/authorise', body);
  const order = { transaction_id: held.body.transaction_id, order_no: body.order_no as string, currency: 'USD', amount: '10.00' };
  expect((await review(client, order, '1')).review_status).toBe('1');
  return (await client.post('/v1/authorise', body)).body.recurring_id;
}

/** Pays `body` and answers the subscription's id (recurring_id). */
export async function subscribe(client: SignedClient, body: Record<string, unknown>): Promise<{ recurringId: string; transactionId: string; orderNo: string }> {
  const answer = await client.post('/v1/authorise', body);
  expect(answer.status).toBe(200);
  expect(answer.body.order_status).toBe('1');
  expect(answer.body.recurring_id).toMatch(/^RC[0-9A-Z]{26}$/);
  return { recurringId: answer.body.recurring_id, transactionId: answer.body.transaction_id, orderNo: body.order_no as string };
}

/** Runs the billing sweeper (and the unknown-payments one) until a round finds nothing to do. */
export async function runBilling(deps: Deps): Promise<number> {
  let total = 0;
  for (let round = 0; round < 1_000; round++) {
    const handled = (await billSubscriptions(deps)) + (await resolveUnknownPayments(deps));
    if (handled === 0) return total;
    total += handled;
  }
  throw new Error('billing never settled');
}

export interface ChargeView {
  cycle: number;
  attempt: number;
  status: string;
  order_no: string;
  amount: number;
  due_at: string;
  payment_id: string | null;
  result_code: string | null;
}

export async function chargesOf(deps: Deps, recurringId: string): Promise<ChargeView[]> {
  return deps.database.query<ChargeView>(
    `SELECT cycle, attempt, status, order_no, amount::int AS amount, to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') AS due_at, payment_id, result_code
       FROM subscription_charges WHERE subscription_id = $1 ORDER BY cycle, attempt`,
    [recurringId],
  );
}

export async function subscriptionOf(deps: Deps, recurringId: string): Promise<Record<string, any>> {
  const [row] = await deps.database.query<Record<string, any>>('SELECT * FROM subscriptions WHERE id = $1', [recurringId]);
  return row!;
}

export async function eventsOf(deps: Deps, type: string, recurringId: string): Promise<Record<string, any>[]> {
  const rows = await deps.database.query<{ payload: Record<string, any> }>(
    `SELECT payload FROM events WHERE type = $1 AND payload->>'recurring_id' = $2 ORDER BY created_at, id`,
    [type, recurringId],
  );
  return rows.map((row) => row.payload);
}
