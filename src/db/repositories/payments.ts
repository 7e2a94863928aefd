// Payments. A direct card authorisation runs two statements: the claim (which also reads the risk
// facts) and the outcome, each committing once; the claim must be durable before the processor is
// asked. Both are constant raw SQL prepared once per connection, and each returns only what the
// database fills in (version, timestamps), the rest being what was just written. Measured:
// Drizzle's builders took a fifth of the server's CPU on this path, and parsing whole rows back a
// tenth more. Concurrent authorisations share them: `hotPath` sends the claims (and the outcomes)
// of one turn of the event loop as one statement (payment-batches.ts).
import { and, asc, eq, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import { beginsHold, nextCheckFor, PAYMENT_MACHINE, type CheckTimes, type PaymentStatus } from '../../domain/payment.ts';
import type { Transition } from '../../domain/state-machine.ts';
import type { OrderRecord } from '../../domain/order.ts';
import type { Database, Executor } from '../client.ts';
import { coalescing, type Coalesced } from '../coalesce.ts';
import { journalAccountSql } from './ledger.ts';
import { CLAIMS_SQL, claimsParams, OUTCOMES_SQL, outcomesParams } from './payment-batches.ts';
import { rowMapper } from '../rows.ts';
import { lease, leaseDue, type LeaseClocks, type LeaseOptions, type QUEUES } from './leases.ts';
import { payments, type PaymentRow } from '../schema.ts';
import { byAskedVelocity, riskParams, riskRecordOf, type RiskColumns, type RiskProbe, type RiskRecord } from './risk.ts';

/** A new payment's columns; created_at is the injected clock's, set by the repository that claims it. */
export type NewPayment = Omit<typeof payments.$inferInsert, 'createdAt'>;

/** The columns the database fills in, read back through the schema's own mappers. */
interface Stamps {
  readonly version: unknown;
  readonly created_at?: unknown;
  readonly updated_at: unknown;
}
const stamp = (column: { mapFromDriverValue(value: unknown): unknown }, value: unknown) => column.mapFromDriverValue(value) as Date;

export interface Claim {
  readonly id: string;
  readonly accountId: string;
  readonly merchantId: string;
  readonly orderNo: string;
  readonly kind: 'card' | 'apm' | 'checkout';
  readonly paymentMethod: string;
  readonly amount: number;
  readonly currency: string;
  readonly requestFingerprint: string;
  readonly request: OrderRecord;
  readonly connector: string;
  readonly card?: { brand: string; bin: string; last4: string; length: number; fingerprint: string } | undefined;
  readonly tokenId?: string | null | undefined;
  readonly shopperEmail?: string | null | undefined;
  readonly shopperIp?: string | null | undefined;
  readonly notifyUrl?: string | null | undefined;
  /** Business time of the claim: created_at. */
  readonly now: Date;
  /** Wall time of the claim: the sweeper first asks `unknownAfterMs` after it. */
  readonly wallNow: Date;
  readonly unknownAfterMs: number;
}

// The claim's first state, checked against the table once (the statements below are constant texts).
const CLAIMED: PaymentStatus = PAYMENT_MACHINE.enter('processing').to;

// The risk facts are read in the same statement, from the same snapshot: the new row is not
// visible to them, so this payment never counts towards its own velocity.
export const claimStatement = byAskedVelocity(
  'claim_payment',
  22,
  ({ columns, unasked }) => `WITH claimed AS (
    INSERT INTO payments (id, account_id, merchant_id, order_no, kind, payment_method, status, amount, currency,
      request_fingerprint, request, card_brand, card_bin, card_last4, card_length, card_fingerprint, token_id,
      shopper_email, shopper_ip, notify_url, connector, created_at, next_check_at)
    VALUES ($1, $2, $3, $4, $5, $6, 'processing', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
    ON CONFLICT (account_id, order_no) DO NOTHING
    RETURNING version, updated_at
  )${unasked ? `, ${unasked}` : ''}
  SELECT claimed.*, ${columns} FROM claimed`,
);

/** claimStatement's parameters, in its order (also what npm run bench sends raw). */
export function claimParams(claim: Claim, probe: RiskProbe): unknown[] {
  return [
    claim.id,
    claim.accountId,
    claim.merchantId,
    claim.orderNo,
    claim.kind,
    claim.paymentMethod,
    claim.amount,
    claim.currency,
    claim.requestFingerprint,
    JSON.stringify(claim.request),
    claim.card?.brand ?? null,
    claim.card?.bin ?? null,
    claim.card?.last4 ?? null,
    claim.card?.length ?? null,
    claim.card?.fingerprint ?? null,
    claim.tokenId ?? null,
    claim.shopperEmail ?? null,
    claim.shopperIp ?? null,
    claim.notifyUrl ?? null,
    claim.connector,
    claim.now,
    nextCheckFor(CLAIMED, claim, null),
    ...riskParams(probe),
  ];
}

/**
 * Inserts the claim row (status processing) and reads the risk facts; null when the order_no is
 * already claimed on this account.
 */
export async function claimPayment(database: Database, claim: Claim, probe: RiskProbe): Promise<{ payment: PaymentRow; facts: RiskRecord } | null> {
  const row = await hotPath(database).claim(claimParams(claim, probe));
  return row ? { payment: claimedRow(claim, row), facts: riskRecordOf(row) } : null;
}

type ClaimedRow = Stamps & RiskColumns & { id?: string };
type WrittenRow = Stamps & { id?: string };

/** The two hot statements of one database, each coalescing the requests of one turn of the event loop (src/db/coalesce.ts). */
interface HotPath {
  readonly claim: Coalesced<unknown[], ClaimedRow | undefined>;
  readonly outcome: Coalesced<unknown[], WrittenRow | undefined>;
}
const hotPaths = new WeakMap<Database, HotPath>();
// A batch of more than this many waits for the next statement (the arrays stay small).
const MOST_AT_ONCE = 64;

/** The hot path's statements on `database`, with their counts (the tests and the bench read them). */
export function hotPath(database: Database): HotPath {
  let path = hotPaths.get(database);
  if (!path) {
    // Each payment's row, by the id its parameters name at `at`; none for a payment left out.
    const byId = <Row extends { id?: string }>(rows: Row[], each: readonly unknown[][], at: number) => {
      const found = new Map(rows.map((row) => [row.id, row]));
      return each.map((params) => found.get(params[at] as string));
    };
    path = {
      claim: coalescing({
        one: async (params) => {
          const { text, name } = claimStatement(params);
          return (await database.query<ClaimedRow>(text, params, name))[0];
        },
        many: async (each) => byId(await database.query<ClaimedRow>(CLAIMS_SQL, claimsParams(each), 'claim_payments'), each, ID),
        // Twins (one order twice) go in different statements: the second finds the first's row.
        key: (params) => `${params[1] as string} ${params[3] as string}`,
        max: MOST_AT_ONCE,
      }),
      outcome: coalescing({
        one: async (params) => (await database.query<WrittenRow>(OUTCOME_SQL, params, 'write_payment_outcome'))[0],
        many: async (each) => byId(await database.query<WrittenRow>(OUTCOMES_SQL, outcomesParams(each), 'write_payment_outcomes'), each, OUTCOME_ID),
        key: (params) => params[OUTCOME_ID] as string,
        max: MOST_AT_ONCE,
      }),
    };
    hotPaths.set(database, path);
  }
  return path;
}
// Where each statement's parameters name the payment.
const ID = 0;
const OUTCOME_ID = 11;

/** The claim as stored: what was inserted, the defaults of the table, and the database's stamps. */
function claimedRow(claim: Claim, stamps: Stamps): PaymentRow {
  return {
    id: claim.id,
    accountId: claim.accountId,
    merchantId: claim.merchantId,
    orderNo: claim.orderNo,
    kind: claim.kind,
    paymentMethod: claim.paymentMethod,
    status: CLAIMED,
    amount: claim.amount,
    currency: claim.currency,
    capturedAmount: 0,
    refundedAmount: 0,
    refundReserved: 0,
    requestFingerprint: claim.requestFingerprint,
    request: claim.request,
    cardBrand: claim.card?.brand ?? null,
    cardBin: claim.card?.bin ?? null,
    cardLast4: claim.card?.last4 ?? null,
    cardLength: claim.card?.length ?? null,
    cardFingerprint: claim.card?.fingerprint ?? null,
    tokenId: claim.tokenId ?? null,
    shopperEmail: claim.shopperEmail ?? null,
    shopperIp: claim.shopperIp ?? null,
    notifyUrl: claim.notifyUrl ?? null,
    connector: claim.connector,
    connectorReference: null,
    processorKey: null,
    actionUrl: null,
    resultCode: null,
    resultMessage: null,
    riskScore: null,
    riskAction: null,
    riskReasons: null,
    threedsResult: null,
    networkTransactionId: null,
    subscriptionId: null,
    leasedUntil: null,
    reviewRequestKey: null,
    completionSentAt: null,
    heldSince: null,
    expiresAt: null,
    nextCheckAt: nextCheckFor(CLAIMED, claim, null),
    version: Number(stamps.version),
    createdAt: claim.now,
    updatedAt: stamp(payments.updatedAt, stamps.updated_at),
  };
}

/** What an outcome changes, computed from the row as read: every column is written. */
export interface OutcomeWrite {
  /** The state move, made by PAYMENT_MACHINE; `next.status` is ignored. */
  readonly move: Transition<PaymentStatus>;
  /** The row to write; its next_check_at is set here from the state reached, its held_since from the move (beginsHold). */
  readonly next: PaymentRow;
  /** Business time of the write. */
  readonly now: Date;
  /** Wall time of the write (a processing payment's next check counts from it, `unknownAfterMs` on). */
  readonly wallNow: Date;
  readonly unknownAfterMs: number;
  /** The version the decision was made on; the write happens only if the row still has it. */
  readonly readVersion: number;
  readonly ledger: readonly { journalId: string; book: string; kind: string; amount: number }[];
  readonly event?: { id: string; type: string; payload: Record<string, unknown> };
  readonly token?: {
    id: string;
    ciphertext: string;
    vaultKeyId: string;
    brand: string;
    bin: string;
    last4: string;
    length: number;
    expiryMonth: number;
    expiryYear: number;
    fingerprint: string;
  };
}

// One statement, so one atomic write: the payment, its journal entries, its outbox event and its
// stored card land together or not at all, and only if no other writer got there first.
export const OUTCOME_SQL = `WITH updated AS (
    UPDATE payments SET status = $1, captured_amount = $2, connector_reference = $3, action_url = $4, result_code = $5,
      result_message = $6, risk_score = $7, risk_action = $8, risk_reasons = $9::jsonb, threeds_result = $10, token_id = $11,
      next_check_at = $32, network_transaction_id = $33, held_since = coalesce($35, held_since), version = version + 1, updated_at = now()
    WHERE id = $12 AND version = $13 AND status = $31
    RETURNING id, account_id, currency, notify_url, version, updated_at
  ), journal AS (
    INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, payment_id, booked_at)
    SELECT e.journal_id, ${journalAccountSql('e.book', 'u.account_id')}, e.book, e.kind, u.currency, e.amount, u.id, $34
    FROM updated u CROSS JOIN unnest($14::text[], $15::text[], $16::text[], $17::bigint[]) AS e(journal_id, book, kind, amount)
  ), event AS (
    INSERT INTO events (id, account_id, type, payment_id, payload, notify_url, delivery_status)
    SELECT $18, u.account_id, $19, u.id, $20::jsonb, u.notify_url, CASE WHEN u.notify_url IS NULL THEN 'no_target' ELSE 'pending' END
    FROM updated u WHERE $19::text IS NOT NULL
  ), token AS (
    INSERT INTO card_tokens (id, account_id, pan_ciphertext, vault_key_id, brand, bin, last4, pan_length, expiry_month, expiry_year, fingerprint)
    SELECT $21, u.account_id, $22, $23, $24, $25, $26, $27, $28, $29, $30 FROM updated u WHERE $21::text IS NOT NULL
  )
  SELECT version, updated_at FROM updated`;

/** What OUTCOME_SQL writes of the payment row. */
export type OutcomeFields = Pick<
  PaymentRow,
  'id' | 'capturedAmount' | 'connectorReference' | 'actionUrl' | 'resultCode' | 'resultMessage' | 'riskScore' | 'riskAction' | 'riskReasons' | 'threedsResult' | 'tokenId' | 'expiresAt' | 'networkTransactionId'
>;

/** OUTCOME_SQL's parameters, in its order (also what npm run bench sends raw). */
export function outcomeParams(write: Omit<OutcomeWrite, 'next'> & { next: OutcomeFields }): unknown[] {
  const { next, token, event, move } = write;
  const nextCheckAt = nextCheckFor(move.to, write, next.expiresAt);
  return [
    move.to,
    next.capturedAmount,
    next.connectorReference,
    next.actionUrl,
    next.resultCode,
    next.resultMessage,
    next.riskScore,
    next.riskAction,
    next.riskReasons === null ? null : JSON.stringify(next.riskReasons),
    next.threedsResult,
    next.tokenId,
    next.id,
    write.readVersion,
    write.ledger.map((e) => e.journalId),
    write.ledger.map((e) => e.book),
    write.ledger.map((e) => e.kind),
    write.ledger.map((e) => e.amount),
    event?.id ?? null,
    event?.type ?? null,
    event ? JSON.stringify(event.payload) : null,
    token?.id ?? null,
    token?.ciphertext ?? null,
    token?.vaultKeyId ?? null,
    token?.brand ?? null,
    token?.bin ?? null,
    token?.last4 ?? null,
    token?.length ?? null,
    token?.expiryMonth ?? null,
    token?.expiryYear ?? null,
    token?.fingerprint ?? null,
    move.from,
    nextCheckAt,
    next.networkTransactionId,
    write.now,
    heldSinceAfter(move, write.now),
  ];
}

/** held_since to write for `move` at `now` (business time): `now` when it begins the hold, else null (kept as it is). */
function heldSinceAfter(move: Transition<PaymentStatus>, now: Date): Date | null {
  return beginsHold(move) ? now : null;
}

/** Writes an outcome; null when the row moved on since it was read (the caller re-reads and re-decides). */
export async function writeOutcome(database: Database, write: OutcomeWrite): Promise<PaymentRow | null> {
  const { next, move } = write;
  const nextCheckAt = nextCheckFor(move.to, write, next.expiresAt);
  const row = await hotPath(database).outcome(outcomeParams(write));
  const heldSince = heldSinceAfter(move, write.now) ?? next.heldSince;
  return row ? { ...next, status: move.to, nextCheckAt, heldSince, version: Number(row.version), updatedAt: stamp(payments.updatedAt, row.updated_at) } : null;
}

/**
 * The card network's id of the payment that stored this card (the first approved payment with the
 * token that carries one): what a merchant-initiated charge of the stored card quotes.
 */
export async function storingNetworkTransactionId(db: Executor, accountId: string, tokenId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: payments.networkTransactionId })
    .from(payments)
    .where(and(eq(payments.accountId, accountId), eq(payments.tokenId, tokenId), isNotNull(payments.networkTransactionId)))
    .orderBy(asc(payments.createdAt))
    .limit(1);
  return row?.id ?? null;
}

export async function findPaymentByOrderNo(db: Executor, accountId: string, orderNo: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(and(eq(payments.accountId, accountId), eq(payments.orderNo, orderNo)));
  return row ?? null;
}

export async function findPayment(db: Executor, accountId: string, id: string): Promise<PaymentRow | null> {
  const [row] = await db.select().from(payments).where(and(eq(payments.accountId, accountId), eq(payments.id, id)));
  return row ?? null;
}

/** Locks the row for the rest of the transaction: the caller decides from what it reads. */
export async function lockPayment(tx: Executor, accountId: string, id: string): Promise<PaymentRow | null> {
  const [row] = await tx.select().from(payments).where(and(eq(payments.accountId, accountId), eq(payments.id, id))).for('update');
  return row ?? null;
}

/** Columns a write may change beside the state; the state (and held_since, which it stamps) only ever changes through a Transition. */
export type PaymentChanges = Omit<Partial<NewPayment>, 'status' | 'id' | 'accountId' | 'version' | 'nextCheckAt' | 'heldSince'>;

/** next_check_at for a move to `to` at `now` (a shopper's page keeps its own deadline, expires_at). */
export function nextCheckColumn(to: PaymentStatus, at: CheckTimes) {
  return to === 'requires_redirect' ? sql`${payments.expiresAt}` : nextCheckFor(to, at, null);
}

/**
 * Writes a locked payment's state move made by PAYMENT_MACHINE (or a `stay`) and other columns;
 * a move that begins the payment's hold stamps held_since with the business time `at.now`, or
 * `at.heldSince` when the processor said when it authorised (an answer learned late).
 * Any change through Drizzle bumps the version, so optimistic writers notice it.
 */
export async function transitionPayment(
  tx: Executor,
  id: string,
  move: Transition<PaymentStatus>,
  at: CheckTimes & { readonly heldSince?: Date },
  changes: PaymentChanges = {},
): Promise<PaymentRow> {
  const [row] = await tx
    .update(payments)
    .set({
      ...changes,
      status: move.to,
      nextCheckAt: nextCheckColumn(move.to, at),
      ...(beginsHold(move) ? { heldSince: at.heldSince ?? at.now } : {}),
      version: sql`${payments.version} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(payments.id, id), eq(payments.status, move.from)))
    .returning();
  if (!row) throw new Error(`payment ${id} is no longer ${move.from}: lock it before moving it`);
  return row;
}

const toPayment = rowMapper(payments);

/** Leases due payments of `queue` (QUEUES.unknownPayments, abandonedPayments, expiringAuthorisations) for `leaseMs`. */
export async function leaseDuePayments(
  db: Executor,
  queue: typeof QUEUES.unknownPayments | typeof QUEUES.abandonedPayments | typeof QUEUES.expiringAuthorisations,
  clocks: LeaseClocks,
  limit: number,
  leaseMs: number,
  options: LeaseOptions = {},
): Promise<PaymentRow[]> {
  return (await leaseDue(db, queue, lease(clocks, leaseMs), limit, options)).map(toPayment);
}

/**
 * A 3-D Secure or APM completion is about to be sent to the processor (wall time): from here on
 * the processor may have an outcome the gateway has not heard, so the expiry task asks it first.
 * One at a time, in one compare-and-set: false while the payment no longer waits in `status`, or
 * while another completion sent less than `inFlightMs` before may still be answered (a second tab
 * of the shopper's), so the processor never hears two answers of which the gateway records one.
 */
export async function claimCompletion(db: Executor, id: string, status: PaymentStatus, at: Date, inFlightMs: number): Promise<boolean> {
  const settled = new Date(at.getTime() - inFlightMs);
  const rows = await db
    .update(payments)
    .set({ completionSentAt: at })
    .where(and(eq(payments.id, id), eq(payments.status, status), or(isNull(payments.completionSentAt), lte(payments.completionSentAt, settled))))
    .returning({ id: payments.id });
  return rows.length === 1;
}

/** When a sweeper should look at a payment again (its state unchanged). */
export async function rescheduleCheck(db: Executor, id: string, at: Date): Promise<void> {
  await db.update(payments).set({ nextCheckAt: at }).where(eq(payments.id, id));
}
