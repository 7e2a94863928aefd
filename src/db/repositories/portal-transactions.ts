// The portal's reads of one merchant's payments (src/app/portal/transactions.ts): every query
// takes the merchant, so another merchant's transaction is simply not found.
import { and, asc, desc, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { PaymentStatus } from '../../domain/payment.ts';
import type { Executor } from '../client.ts';
import { accounts, disputes, events, ledgerEntries, notificationAttempts, paymentOperations, payments, refunds, type AccountRow, type DisputeRow, type PaymentRow } from '../schema.ts';

export type TransactionSort = 'created' | 'amount';

export interface TransactionFilter {
  readonly merchantId: string;
  readonly orderNo?: string;
  readonly transactionId?: string;
  readonly status?: PaymentStatus;
  /** Created at or after. */
  readonly from?: Date;
  /** Created before. */
  readonly before?: Date;
  readonly currency?: string;
  /** Minor units of `currency`, inclusive. */
  readonly minAmount?: number;
  readonly maxAmount?: number;
  readonly cardLast4?: string;
  /** Compared without regard to case. */
  readonly shopperEmail?: string;
  readonly paymentMethod?: string;
}

export interface TransactionPageRequest {
  readonly sort: TransactionSort;
  readonly descending: boolean;
  readonly offset: number;
  readonly limit: number;
}

function conditionsOf(filter: TransactionFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(payments.merchantId, filter.merchantId)];
  if (filter.orderNo !== undefined) conditions.push(eq(payments.orderNo, filter.orderNo));
  if (filter.transactionId !== undefined) conditions.push(eq(payments.id, filter.transactionId));
  if (filter.status !== undefined) conditions.push(eq(payments.status, filter.status));
  if (filter.from !== undefined) conditions.push(gte(payments.createdAt, filter.from));
  if (filter.before !== undefined) conditions.push(lt(payments.createdAt, filter.before));
  if (filter.currency !== undefined) conditions.push(eq(payments.currency, filter.currency));
  if (filter.minAmount !== undefined) conditions.push(gte(payments.amount, filter.minAmount));
  if (filter.maxAmount !== undefined) conditions.push(lte(payments.amount, filter.maxAmount));
  if (filter.cardLast4 !== undefined) conditions.push(eq(payments.cardLast4, filter.cardLast4));
  if (filter.shopperEmail !== undefined) conditions.push(sql`lower(${payments.shopperEmail}) = ${filter.shopperEmail.toLowerCase()}`);
  if (filter.paymentMethod !== undefined) conditions.push(eq(payments.paymentMethod, filter.paymentMethod));
  return and(...conditions);
}

/** One page of the merchant's payments matching every filter given, in the order asked (ties by id). */
export async function searchPayments(db: Executor, filter: TransactionFilter, page: TransactionPageRequest): Promise<PaymentRow[]> {
  const direction = page.descending ? desc : asc;
  const column = page.sort === 'amount' ? payments.amount : payments.createdAt;
  return db
    .select()
    .from(payments)
    .where(conditionsOf(filter))
    .orderBy(direction(column), direction(payments.id))
    .offset(page.offset)
    .limit(page.limit);
}

/** The merchant's payment `id`, or undefined (another merchant's too). */
export async function merchantPayment(db: Executor, merchantId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(and(eq(payments.merchantId, merchantId), eq(payments.id, id)));
  return row;
}

export async function merchantAccount(db: Executor, merchantId: string, accountId: string): Promise<AccountRow | undefined> {
  const [row] = await db.select().from(accounts).where(and(eq(accounts.merchantId, merchantId), eq(accounts.id, accountId)));
  return row;
}

export async function merchantAccounts(db: Executor, merchantId: string): Promise<AccountRow[]> {
  return db.select().from(accounts).where(eq(accounts.merchantId, merchantId)).orderBy(asc(accounts.id));
}

/** The distinct payment methods the merchant's payments used, for the filter's choices. */
export async function merchantPaymentMethods(db: Executor, merchantId: string): Promise<string[]> {
  const rows = await db.selectDistinct({ method: payments.paymentMethod }).from(payments).where(eq(payments.merchantId, merchantId)).orderBy(asc(payments.paymentMethod));
  return rows.map((row) => row.method);
}

/** Everything that happened to a payment, each list oldest first. */
export async function paymentHistory(db: Executor, paymentId: string) {
  const [operations, refundRows, eventRows, attempts, entries] = await Promise.all([
    db.select().from(paymentOperations).where(eq(paymentOperations.paymentId, paymentId)).orderBy(asc(paymentOperations.createdAt), asc(paymentOperations.id)),
    db.select().from(refunds).where(eq(refunds.paymentId, paymentId)).orderBy(asc(refunds.createdAt), asc(refunds.id)),
    db.select().from(events).where(eq(events.paymentId, paymentId)).orderBy(asc(events.createdAt), asc(events.id)),
    db
      .select({
        eventId: notificationAttempts.eventId,
        attempt: notificationAttempts.attempt,
        trigger: notificationAttempts.trigger,
        startedAt: notificationAttempts.startedAt,
        outcome: notificationAttempts.outcome,
        httpStatus: notificationAttempts.httpStatus,
        latencyMs: notificationAttempts.latencyMs,
        error: notificationAttempts.error,
      })
      .from(notificationAttempts)
      .innerJoin(events, eq(events.id, notificationAttempts.eventId))
      .where(eq(events.paymentId, paymentId))
      .orderBy(asc(notificationAttempts.startedAt), asc(notificationAttempts.id)),
    db.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, paymentId)).orderBy(asc(ledgerEntries.bookedAt), asc(ledgerEntries.id)),
  ]);
  return { operations, refunds: refundRows, events: eventRows, attempts, entries };
}

/** The merchant's disputes (chargebacks) of its payment `paymentId`, oldest first; none of another merchant's. */
export async function merchantPaymentDisputes(db: Executor, merchantId: string, paymentId: string): Promise<DisputeRow[]> {
  return db
    .select()
    .from(disputes)
    .where(and(eq(disputes.merchantId, merchantId), eq(disputes.paymentId, paymentId)))
    .orderBy(asc(disputes.openedAt), asc(disputes.id));
}

/** Which of the merchant's payments `paymentIds` (one page of a search) have an open dispute: one query. */
export async function paymentsWithOpenDisputes(db: Executor, merchantId: string, paymentIds: readonly string[]): Promise<Set<string>> {
  if (paymentIds.length === 0) return new Set();
  const rows = await db
    .selectDistinct({ paymentId: disputes.paymentId })
    .from(disputes)
    .where(and(eq(disputes.merchantId, merchantId), eq(disputes.status, 'open'), inArray(disputes.paymentId, [...paymentIds])));
  return new Set(rows.map((row) => row.paymentId));
}

/** The event `eventId` when it belongs to one of the merchant's accounts. */
export async function merchantEvent(db: Executor, merchantId: string, eventId: string): Promise<{ id: string; paymentId: string | null } | undefined> {
  const [row] = await db
    .select({ id: events.id, paymentId: events.paymentId })
    .from(events)
    .innerJoin(accounts, eq(accounts.id, events.accountId))
    .where(and(eq(accounts.merchantId, merchantId), eq(events.id, eventId)));
  return row;
}
