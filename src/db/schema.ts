// Drizzle's view of the tables that src/db/migrations/*.sql create. test/db/schema.test.ts fails
// when the two disagree.
import type { FeeSchedule } from '../domain/ledger.ts';
import { MEMBER_MACHINE, SESSION_MACHINE, type MemberStatus, type Role, type SessionStatus } from '../domain/members.ts';
import type { RiskReason } from '../domain/risk.ts';
import { OPERATION_MACHINE, REFUND_MACHINE } from '../domain/lifecycle.ts';
import { PAYOUT_MACHINE, type PayoutStatus } from '../domain/payouts/status.ts';
import type { PayoutFeeSchedule } from '../domain/payouts/fees.ts';
import type { OrderRecord } from '../domain/order.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../domain/payment.ts';
import { DISPUTE_MACHINE, type DisputeStatus } from '../domain/disputes.ts';
import { statesSql, type StateMachine } from '../domain/state-machine.ts';
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, date, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { CHARGE_MACHINE, SUBSCRIPTION_MACHINE, type ChargeStatus, type DunningSettings, type SubscriptionStatus } from '../domain/subscriptions/subscription.ts';
import type { Interval } from '../domain/subscriptions/schedule.ts';

/** A point in time (timestamptz), read as a Date. */
const time = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const createdAt = () => time('created_at').notNull().defaultNow();
const money = (name: string) => bigint(name, { mode: 'number' });

export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
  createdAt: createdAt(),
});

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  name: text('name').notNull(),
  status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
  captureMode: text('capture_mode').$type<'auto' | 'manual'>().notNull().default('auto'),
  connector: text('connector').notNull().default('simulator'),
  /** The account's credentials with its connector, sealed by the vault (context: the account id) (0009). */
  connectorCredentials: text('connector_credentials'),
  connectorCredentialsKey: text('connector_credentials_key'),
  rateLimitPerSecond: integer('rate_limit_per_second'),
  feeBps: integer('fee_bps').notNull().default(0),
  /** Per currency: a fixed part in minor units plus basis points (0009); else fee_bps alone. */
  fees: jsonb('fees').$type<FeeSchedule>().notNull().default({}),
  /** Payout fees per source currency (0013); a currency without one pays the sandbox default. */
  payoutFees: jsonb('payout_fees').$type<PayoutFeeSchedule>().notNull().default({}),
  riskSettings: jsonb('risk_settings').$type<Record<string, unknown>>().notNull().default({}),
  storefrontDomains: text('storefront_domains').array().notNull().default([]),
  /** How declined recurring charges are retried (0012; docs/subscriptions.md). */
  dunning: jsonb('dunning').$type<DunningSettings>().notNull().default({}),
  createdAt: createdAt(),
});

export const accountKeys = pgTable('account_keys', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  vaultKeyId: text('vault_key_id').notNull(),
  createdAt: createdAt(),
  expiresAt: time('expires_at'),
});

export const accountIps = pgTable(
  'account_ips',
  {
    accountId: text('account_id').notNull(),
    cidr: text('cidr').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.cidr] })],
);

export const cardTokens = pgTable('card_tokens', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  panCiphertext: text('pan_ciphertext').notNull(),
  vaultKeyId: text('vault_key_id').notNull(),
  brand: text('brand').notNull(),
  bin: text('bin').notNull(),
  last4: text('last4').notNull(),
  panLength: integer('pan_length').notNull(),
  expiryMonth: integer('expiry_month').notNull(),
  expiryYear: integer('expiry_year').notNull(),
  fingerprint: text('fingerprint').notNull(),
  createdAt: createdAt(),
});

/** A status column's CHECK: exactly its machine's states (test/db/schema.test.ts compares it with the migrations). */
const statusCheck = (table: string, machine: StateMachine<string>) => check(`${table}_status_check`, sql.raw(`status IN (${statesSql(machine)})`));

export const payments = pgTable('payments', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  merchantId: text('merchant_id').notNull(),
  orderNo: text('order_no').notNull(),
  kind: text('kind').$type<'card' | 'apm' | 'checkout'>().notNull(),
  paymentMethod: text('payment_method').notNull(),
  status: text('status').$type<PaymentStatus>().notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  capturedAmount: money('captured_amount').notNull().default(0),
  refundedAmount: money('refunded_amount').notNull().default(0),
  /** Pending and succeeded refunds: what is no longer available to refund (≤ captured). */
  refundReserved: money('refund_reserved').notNull().default(0),
  requestFingerprint: text('request_fingerprint').notNull(),
  /** What the payment keeps of its order (OrderRecord), written by its command. */
  request: jsonb('request').$type<OrderRecord>().notNull(),
  cardBrand: text('card_brand'),
  cardBin: text('card_bin'),
  cardLast4: text('card_last4'),
  cardLength: integer('card_length'),
  cardFingerprint: text('card_fingerprint'),
  tokenId: text('token_id'),
  shopperEmail: text('shopper_email'),
  shopperIp: text('shopper_ip'),
  notifyUrl: text('notify_url'),
  connector: text('connector').notNull(),
  connectorReference: text('connector_reference'),
  /**
   * The processor's idempotency key of the payment's current attempt (0033), when it is not the
   * transaction id: a hosted page's second and later card attempts (processorKeyOf).
   */
  processorKey: text('processor_key'),
  /** Where the shopper must go to finish (3-D Secure challenge, APM issuer page). */
  actionUrl: text('action_url'),
  resultCode: text('result_code'),
  resultMessage: text('result_message'),
  riskScore: integer('risk_score'),
  riskAction: text('risk_action'),
  riskReasons: jsonb('risk_reasons').$type<RiskReason[]>(),
  threedsResult: text('threeds_result'),
  /** The card network's id of an approved card payment, quoted by later merchant-initiated charges of its stored card (0010). */
  networkTransactionId: text('network_transaction_id'),
  version: integer('version').notNull().default(0),
  /** The injected clock's time of the claim, never a database default (0010): expiry counts from it. */
  createdAt: time('created_at').notNull(),
  updatedAt: time('updated_at').notNull().defaultNow(),
  /** When a payment waiting for the shopper (requires_redirect) is given up as abandoned (0005). */
  expiresAt: time('expires_at'),
  /**
   * When a sweeper next looks at a pending payment (0008): wall time while processing (and then its
   * lease too), business time while waiting for the shopper (src/db/repositories/leases.ts).
   */
  nextCheckAt: time('next_check_at'),
  /** The subscription this payment created (its recurring_id) (0012). */
  subscriptionId: text('subscription_id'),
  /** A business-time sweeper's lease, wall time (0018). */
  leasedUntil: time('leased_until'),
  /**
   * 0020: the order key (OrderRef.requestKey) of the keyed /v1/review request that approved this
   * payment on a manual-capture account, the one decision that claims no payment_operations row.
   */
  reviewRequestKey: text('review_request_key'),
  /** 0026: when a 3-D Secure or APM completion was last sent to the processor, wall time (src/app/payments/completion.ts). */
  completionSentAt: time('completion_sent_at'),
  /**
   * 0031: when the payment's hold at the processor began, on the injected clock: the move into
   * authorised or pending_review from outside them (beginsHold), kept by an approval from review.
   * The connector's authorisation expiry counts from it, not from created_at. Null: never held.
   */
  heldSince: time('held_since'),
}, () => [statusCheck('payments', PAYMENT_MACHINE)]);

export const ledgerEntries = pgTable('ledger_entries', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  journalId: text('journal_id').notNull(),
  accountId: text('account_id').notNull(),
  book: text('book').notNull(),
  kind: text('kind').notNull(),
  currency: text('currency').notNull(),
  amount: money('amount').notNull(),
  paymentId: text('payment_id'),
  referenceId: text('reference_id'),
  /** The injected clock's time of the movement (0010): what settlement compares with its cutoff. */
  bookedAt: time('booked_at').notNull(),
  createdAt: createdAt(),
  /** 0032: a merchant_balance movement no settlement has counted yet (src/db/repositories/balances.ts, dueSettlements). */
  settlementPending: boolean('settlement_pending').notNull().default(true),
});

/** Per account and currency: what payouts may draw on (0009). Pending is derived from the journal. */
export const accountBalances = pgTable(
  'account_balances',
  {
    accountId: text('account_id').notNull(),
    currency: text('currency').notNull(),
    available: money('available').notNull().default(0),
    reserved: money('reserved').notNull().default(0),
    updatedAt: time('updated_at').notNull().defaultNow(),
    /** 0027: the latest cutoff settlement has settled this currency up to, business time (src/app/balances/settle.ts). */
    settledBefore: time('settled_before'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.currency] })],
);

export const events = pgTable('events', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  type: text('type').notNull(),
  paymentId: text('payment_id'),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  notifyUrl: text('notify_url'),
  createdAt: createdAt(),
  // Delivery to notify_url (migration 0003; docs/notifications.md).
  deliveryStatus: text('delivery_status').$type<DeliveryStatus>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  failures: integer('failures').notNull().default(0),
  nextAttemptAt: time('next_attempt_at'),
  lockedUntil: time('locked_until'),
  leaseToken: text('lease_token'),
  deliveredAt: time('delivered_at'),
});

export const riskBlocklist = pgTable('risk_blocklist', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  accountId: text('account_id'),
  kind: text('kind').$type<'card' | 'email' | 'ip' | 'bin' | 'country'>().notNull(),
  value: text('value').notNull(),
  note: text('note'),
  createdAt: createdAt(),
});

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'no_target';
export type AttemptOutcome = 'sending' | 'delivered' | 'failed' | 'refused' | 'abandoned';

export const notificationAttempts = pgTable('notification_attempts', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  eventId: text('event_id').notNull(),
  attempt: integer('attempt').notNull(),
  trigger: text('trigger').$type<'schedule' | 'replay'>().notNull(),
  notifyTime: bigint('notify_time', { mode: 'number' }).notNull(),
  startedAt: time('started_at').notNull(),
  outcome: text('outcome').$type<AttemptOutcome>().notNull().default('sending'),
  httpStatus: integer('http_status'),
  latencyMs: integer('latency_ms'),
  error: text('error'),
  responseExcerpt: text('response_excerpt'),
});

export type PaymentRow = typeof payments.$inferSelect;
export type AccountRow = typeof accounts.$inferSelect;

// 0004_lifecycle: captures and voids of an authorisation, refunds of captured money.
export const paymentOperations = pgTable('payment_operations', {
  id: text('id').primaryKey(),
  paymentId: text('payment_id').notNull(),
  accountId: text('account_id').notNull(),
  kind: text('kind').$type<'capture' | 'void'>().notNull(),
  origin: text('origin').$type<'capture' | 'cancel' | 'review_approve' | 'review_reject' | 'review_expired' | 'expiry'>().notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  status: text('status').$type<'pending' | 'succeeded' | 'failed'>().notNull().default('pending'),
  connectorReference: text('connector_reference'),
  failureReason: text('failure_reason'),
  attempts: integer('attempts').notNull().default(0),
  nextCheckAt: time('next_check_at').notNull(),
  createdAt: createdAt(),
  updatedAt: time('updated_at').notNull().defaultNow(),
  /** 0019: the key of a keyed request's order (Idempotency-Key's scope and the order's position), unique per account. */
  requestKey: text('request_key'),
}, () => [statusCheck('payment_operations', OPERATION_MACHINE)]);

export const refunds = pgTable('refunds', {
  id: text('id').primaryKey(),
  paymentId: text('payment_id').notNull(),
  accountId: text('account_id').notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  reason: text('reason'),
  status: text('status').$type<'pending' | 'succeeded' | 'failed'>().notNull().default('pending'),
  connectorReference: text('connector_reference'),
  resultCode: text('result_code'),
  resultMessage: text('result_message'),
  attempts: integer('attempts').notNull().default(0),
  nextCheckAt: time('next_check_at').notNull(),
  settledAt: time('settled_at'),
  createdAt: createdAt(),
  updatedAt: time('updated_at').notNull().defaultNow(),
  /** 0019: the key of a keyed request's order (Idempotency-Key's scope and the order's position), unique per account. */
  requestKey: text('request_key'),
}, () => [statusCheck('refunds', REFUND_MACHINE)]);

export type PaymentOperationRow = typeof paymentOperations.$inferSelect;
export type RefundRow = typeof refunds.$inferSelect;

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    key: text('key').notNull(),
    operation: text('operation').notNull(),
    requestFingerprint: text('request_fingerprint').notNull(),
    status: text('status').$type<'processing' | 'done'>().notNull().default('processing'),
    httpStatus: integer('http_status'),
    contentType: text('content_type'),
    answer: text('answer'),
    /** Wall time (deps.wallClock): a key is kept KEY_DAYS days of real time, whatever the test clock does. */
    createdAt: createdAt(),
    /** 0019: the presence id of the process running the request, while it runs; null once released. */
    holder: text('holder'),
    /** 0019: wall time until which the holder's claim stands unless its process stops beating. */
    heldUntil: time('held_until'),
    /** 0019: drawn once per key; the request's orders are claimed under `scope:position`. */
    scope: text('scope').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);

// Hosted payment page sessions (0005_checkout.sql).
export const checkoutSessions = pgTable('checkout_sessions', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  paymentId: text('payment_id').notNull(),
  handoffExpiresAt: time('handoff_expires_at').notNull(),
  handedOffAt: time('handed_off_at'),
  attempts: integer('attempts').notNull().default(0),
  lastResultCode: text('last_result_code'),
  createdAt: createdAt(),
});
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;


// 0012_subscriptions: recurring contracts and each attempt at their charges (docs/subscriptions.md).
export const subscriptions = pgTable('subscriptions', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  merchantId: text('merchant_id').notNull(),
  status: text('status').$type<SubscriptionStatus>().notNull(),
  contractName: text('contract_name').notNull(),
  contract: text('contract'),
  priceId: text('price_id'),
  interval: text('interval').$type<Interval>().notNull(),
  intervalCount: integer('interval_count').notNull(),
  billingCycles: integer('billing_cycles').notNull(),
  promotionCycles: integer('promotion_cycles').notNull(),
  contractStart: date('contract_start', { mode: 'string' }),
  contractEnd: date('contract_end', { mode: 'string' }),
  anchorAt: time('anchor_at').notNull(),
  firstAmount: money('first_amount').notNull(),
  contractAmount: money('contract_amount').notNull(),
  currency: text('currency').notNull(),
  tokenId: text('token_id').notNull(),
  networkTransactionId: text('network_transaction_id'),
  notifyUrl: text('notify_url'),
  firstPaymentId: text('first_payment_id').notNull(),
  orderNoBase: text('order_no_base').notNull(),
  cyclesPaid: integer('cycles_paid').notNull().default(1),
  nextCycle: integer('next_cycle').notNull().default(2),
  nextAttempt: integer('next_attempt').notNull().default(1),
  nextDueAt: time('next_due_at'),
  nextChargeAt: time('next_charge_at'),
  lockedUntil: time('locked_until'),
  endedAt: time('ended_at'),
  createdAt: time('created_at').notNull(),
  updatedAt: time('updated_at').notNull().defaultNow(),
}, () => [statusCheck('subscriptions', SUBSCRIPTION_MACHINE)]);

export const subscriptionCharges = pgTable('subscription_charges', {
  id: text('id').primaryKey(),
  subscriptionId: text('subscription_id').notNull(),
  accountId: text('account_id').notNull(),
  cycle: integer('cycle').notNull(),
  attempt: integer('attempt').notNull(),
  orderNo: text('order_no').notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  status: text('status').$type<ChargeStatus>().notNull(),
  paymentId: text('payment_id'),
  resultCode: text('result_code'),
  resultMessage: text('result_message'),
  dueAt: time('due_at').notNull(),
  nextCheckAt: time('next_check_at'),
  attempts: integer('attempts').notNull().default(0),
  createdAt: time('created_at').notNull(),
  updatedAt: time('updated_at').notNull().defaultNow(),
  /** 0028: when a worker began sending the attempt, wall time, stamped while the subscription was Active (src/app/subscriptions/bill.ts). */
  sentAt: time('sent_at'),
}, () => [statusCheck('subscription_charges', CHARGE_MACHINE)]);

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type SubscriptionChargeRow = typeof subscriptionCharges.$inferSelect;
/** Payouts (0013): the request as echoed, the amounts in minor units, the rail's progress. */
export const payouts = pgTable(
  'payouts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    merchantId: text('merchant_id').notNull(),
    requestId: text('request_id').notNull(),
    requestFingerprint: text('request_fingerprint').notNull(),
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    shortReferenceId: text('short_reference_id').notNull(),
    paymentMethod: text('payment_method').$type<'LOCAL' | 'SWIFT'>().notNull(),
    clearingSystem: text('clearing_system').notNull(),
    paymentDate: date('payment_date', { mode: 'string' }).notNull(),
    paymentCurrency: text('payment_currency').notNull(),
    sourceCurrency: text('source_currency').notNull(),
    transferPayment: money('transfer_payment').notNull(),
    transferSource: money('transfer_source').notNull(),
    amountBeneficiaryReceives: money('amount_beneficiary_receives').notNull(),
    amountPayerPays: money('amount_payer_pays').notNull(),
    feeAmount: money('fee_amount').notNull(),
    feeCurrency: text('fee_currency').notNull(),
    feePaidBy: text('fee_paid_by').$type<'PAYER' | 'BENEFICIARY'>().notNull(),
    fxRate: text('fx_rate').notNull(),
    status: text('status').$type<PayoutStatus>().notNull(),
    failureType: text('failure_type'),
    failureReason: text('failure_reason'),
    connector: text('connector').notNull(),
    railReference: text('rail_reference'),
    notifyUrl: text('notify_url'),
    attempts: integer('attempts').notNull().default(0),
    /** The rail task's due time, business time (docs/payouts.md, Statuses). */
    nextCheckAt: time('next_check_at'),
    createdAt: time('created_at').notNull(),
    updatedAt: time('updated_at').notNull(),
    /** The rail task's lease, wall time (0018, src/db/repositories/leases.ts). */
    leasedUntil: time('leased_until'),
  },
  (t) => [unique('payouts_request').on(t.accountId, t.requestId), statusCheck('payouts', PAYOUT_MACHINE)],
);

export type PayoutRow = typeof payouts.$inferSelect;

/** Exchange rates payouts convert at (0013): payment-currency units per source-currency unit. */
export const fxRates = pgTable(
  'fx_rates',
  {
    sourceCurrency: text('source_currency').notNull(),
    paymentCurrency: text('payment_currency').notNull(),
    rate: text('rate').notNull(),
    updatedAt: time('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceCurrency, t.paymentCurrency] })],
);

// The sandbox's test clock (0014_sandbox_clock.sql): one row, business time's lead on the wall clock.
export const sandboxClock = pgTable('sandbox_clock', {
  id: boolean('id').primaryKey().default(true),
  offsetMs: bigint('offset_ms', { mode: 'number' }).notNull().default(0),
  /** The wall-clock time of the last advance (the database's own clock). */
  advancedAt: time('advanced_at'),
});

// Many processes on one database (0016_many_processes.sql): who is running, and the version of
// each cache every process keeps.
export const processHeartbeats = pgTable('process_heartbeats', {
  id: text('id').primaryKey(),
  role: text('role').$type<'gateway' | 'worker'>().notNull(),
  startedAt: time('started_at').notNull().defaultNow(),
  beatAt: time('beat_at').notNull(),
});

export const cacheVersions = pgTable('cache_versions', {
  name: text('name').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull(),
});

// Owned by the sandbox simulator (src/connectors/simulator/memory.ts); empty in live mode.
export const simulatorLostAnswers = pgTable('simulator_lost_answers', {
  /** The charge's idempotency key (0033): the transaction id for a payment's only attempt. */
  idempotencyKey: text('idempotency_key').primaryKey(),
  outcome: jsonb('outcome').notNull(),
  rememberedAt: time('remembered_at').notNull().defaultNow(),
});
// Chargebacks (0023_disputes.sql): the disputes acquirers reported, and where each connector's next poll starts.
export const disputes = pgTable(
  'disputes',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    merchantId: text('merchant_id').notNull(),
    paymentId: text('payment_id').notNull(),
    connector: text('connector').notNull(),
    connectorDisputeId: text('connector_dispute_id').notNull(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    reasonCode: text('reason_code').notNull(),
    reason: text('reason'),
    status: text('status').$type<DisputeStatus>().notNull(),
    openedAt: time('opened_at').notNull(),
    reversedAt: time('reversed_at'),
    createdAt: createdAt(),
  },
  (t) => [statusCheck('disputes', DISPUTE_MACHINE), unique('disputes_connector_dispute').on(t.connector, t.connectorDisputeId)],
);
export type DisputeRow = typeof disputes.$inferSelect;

export const disputeCursors = pgTable('dispute_cursors', {
  connector: text('connector').primaryKey(),
  cursor: text('cursor'),
  /** Wall time; NULL: due at once. Also the lease of the worker polling (lease_token). */
  nextPollAt: time('next_poll_at'),
  leaseToken: text('lease_token'),
  polledAt: time('polled_at'),
  createdAt: createdAt(),
});

/** A merchant connection's dispute feed (a connector with `disputesBy: 'credentials'`): its id is a MAC of the connector and the credentials. */
export const disputeFeeds = pgTable('dispute_feeds', {
  id: text('id').primaryKey(),
  connector: text('connector').notNull(),
  cursor: text('cursor'),
  /** Wall time; NULL: due at once. Also the lease of the worker polling (lease_token). */
  nextPollAt: time('next_poll_at'),
  leaseToken: text('lease_token'),
  polledAt: time('polled_at'),
  createdAt: createdAt(),
});

/** Dispute reports not yet placed (docs/chargebacks.md, "Reports held"), tried again on each poll of the feed that brought them. */
export const heldDisputeReports = pgTable(
  'held_dispute_reports',
  {
    connector: text('connector').notNull(),
    connectorDisputeId: text('connector_dispute_id').notNull(),
    stage: text('stage').$type<'opened' | 'reversed'>().notNull(),
    paymentReference: text('payment_reference').notNull(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    reasonCode: text('reason_code').notNull(),
    reason: text('reason'),
    reportedAt: time('reported_at').notNull(),
    skipReason: text('skip_reason').notNull(),
    attempts: integer('attempts').notNull().default(1),
    /** Wall time of the poll that first held it, and of the last try. */
    heldAt: time('held_at').notNull(),
    triedAt: time('tried_at').notNull(),
    /** The feed that brought it: '' for the connector's one feed, else a dispute_feeds id. */
    feed: text('feed').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.connector, t.connectorDisputeId, t.stage] })],
);
export type HeldDisputeReportRow = typeof heldDisputeReports.$inferSelect;

// Owned by the sandbox simulator (src/connectors/simulator/disputes.ts); empty in live mode.
export const simulatorDisputes = pgTable('simulator_disputes', {
  paymentId: text('payment_id').primaryKey(),
  reference: text('reference').notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  reverses: boolean('reverses').notNull(),
  capturedAt: time('captured_at'),
  /** The poll (cursor) its opened report was last handed out under, and whether a later poll acknowledged it. */
  openedPoll: text('opened_poll'),
  openedAcked: boolean('opened_acked').notNull().default(false),
  reversedPoll: text('reversed_poll'),
  reversedAcked: boolean('reversed_acked').notNull().default(false),
});

// The merchant portal (0015_portal.sql): staff members, sessions, one-time links, recovery codes, audit log.
export const portalUsers = pgTable('portal_users', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  email: text('email').notNull(),
  role: text('role').$type<Role>().notNull(),
  status: text('status').$type<MemberStatus>().notNull(),
  passwordHash: text('password_hash'),
  totpSecret: text('totp_secret'),
  totpKeyId: text('totp_key_id'),
  totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  lockedUntil: time('locked_until'),
  createdAt: time('created_at').notNull(),
  updatedAt: time('updated_at').notNull(),
}, () => [statusCheck('portal_users', MEMBER_MACHINE)]);
export type PortalUserRow = typeof portalUsers.$inferSelect;

export const portalSessions = pgTable('portal_sessions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  status: text('status').$type<SessionStatus>().notNull(),
  createdAt: time('created_at').notNull(),
  lastSeenAt: time('last_seen_at').notNull(),
  expiresAt: time('expires_at').notNull(),
  reauthAt: time('reauth_at'),
  pendingTotpSecret: text('pending_totp_secret'),
  pendingTotpKeyId: text('pending_totp_key_id'),
}, () => [statusCheck('portal_sessions', SESSION_MACHINE)]);
export type PortalSessionRow = typeof portalSessions.$inferSelect;

/** The pending session a sign-in's last step replaced (its token's SHA-256), kept a sign-in's lifetime (0034). */
export const portalFinishedSignIns = pgTable('portal_finished_sign_ins', {
  id: text('id').primaryKey(),
  rememberedUntil: time('remembered_until').notNull(),
});

export const portalLinks = pgTable('portal_links', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  expiresAt: time('expires_at').notNull(),
  usedAt: time('used_at'),
  createdAt: time('created_at').notNull(),
});

export const portalRecoveryCodes = pgTable(
  'portal_recovery_codes',
  {
    userId: text('user_id').notNull(),
    codeHash: text('code_hash').notNull(),
    usedAt: time('used_at'),
    createdAt: time('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

export const portalAuditLog = pgTable('portal_audit_log', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  at: time('at').notNull(),
  merchantId: text('merchant_id'),
  userId: text('user_id'),
  email: text('email').notNull(),
  action: text('action').notNull(),
  target: text('target'),
  outcome: text('outcome').$type<'ok' | 'refused' | 'failed'>().notNull(),
  ip: text('ip').notNull(),
  detail: jsonb('detail').$type<Record<string, string>>().notNull().default({}),
  prevHash: text('prev_hash').notNull(),
  hash: text('hash').notNull(),
});
export type AuditRow = typeof portalAuditLog.$inferSelect;
