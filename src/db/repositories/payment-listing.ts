// Payments as an operator looks them up (`acquiro payments list|show`), across accounts. The
// merchant-facing reads, always scoped to one account, are in payment-lookup.ts.
import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Executor } from '../client.ts';
import { events, payments, type PaymentRow } from '../schema.ts';

export interface PaymentFilter {
  readonly merchantId?: string;
  readonly accountId?: string;
  readonly orderNo?: string;
  readonly transactionId?: string;
  readonly status?: PaymentStatus;
  /** Created at or after. */
  readonly from?: Date;
  /** Created at or before. */
  readonly to?: Date;
  readonly limit: number;
}

/** The newest payments matching every filter given. */
export async function listPayments(db: Executor, filter: PaymentFilter): Promise<PaymentRow[]> {
  const conditions: SQL[] = [];
  if (filter.merchantId) conditions.push(eq(payments.merchantId, filter.merchantId));
  if (filter.accountId) conditions.push(eq(payments.accountId, filter.accountId));
  if (filter.orderNo) conditions.push(eq(payments.orderNo, filter.orderNo));
  if (filter.transactionId) conditions.push(eq(payments.id, filter.transactionId));
  if (filter.status) conditions.push(eq(payments.status, filter.status));
  if (filter.from) conditions.push(gte(payments.createdAt, filter.from));
  if (filter.to) conditions.push(lte(payments.createdAt, filter.to));
  return db
    .select()
    .from(payments)
    .where(and(...conditions))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(filter.limit);
}

/** The events recorded about a payment, oldest first, with how far their notification got. */
export async function paymentEvents(db: Executor, paymentId: string) {
  return db
    .select({ id: events.id, type: events.type, created_at: events.createdAt, delivery_status: events.deliveryStatus, attempts: events.attempts })
    .from(events)
    .where(eq(events.paymentId, paymentId))
    .orderBy(events.createdAt, events.id);
}
