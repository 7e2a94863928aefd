// Drizzle's view of the tables that src/db/migrations/*.sql create. test/db/schema.test.ts fails
// when the two disagree.
import type { FeeSchedule } from '../domain/ledger.ts';
import { MEMBER_MACHINE, SESSION_MACHINE, type MemberStatus, type Role, type SessionStatus } from '../domain/members.ts';
import type { RiskReason } from '../domain/risk.ts';
import { OPERATION_MACHINE, REFUND_MACHINE } from '../domain/lifecycle.ts';
import type { OrderRecord } from '../domain/order.ts';
import { PAYMENT_MACHINE, type PaymentStatus } from '../domain/payment.ts';
import { statesSql, type StateMachine } from '../domain/state-machine.ts';
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
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
  riskSettings: jsonb('risk_settings').$type<Record<string, unknown>>().notNull().default({}),
  storefrontDomains: text('storefront_domains').array().notNull().default([]),
  createdAt: createdAt(),
});

export const accountKeys = pgTable('account_keys', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  secretCiphertext: text('secret_ciphertext').notNull(),
  vaultKeyId: text('vault_key_id').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
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
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** When a payment waiting for the shopper (requires_redirect) is given up as abandoned (0005). */
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  /** When a sweeper next looks at a pending payment, on the injected clock; its lease (0008). */
  nextCheckAt: timestamp('next_check_at', { withTimezone: true, mode: 'date' }),
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
  bookedAt: timestamp('booked_at', { withTimezone: true, mode: 'date' }).notNull(),
  createdAt: createdAt(),
});

/** Per account and currency: what payouts may draw on (0009). Pending is derived from the journal. */
export const accountBalances = pgTable(
  'account_balances',
  {
    accountId: text('account_id').notNull(),
    currency: text('currency').notNull(),
    available: money('available').notNull().default(0),
    reserved: money('reserved').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
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
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
  lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
  leaseToken: text('lease_token'),
  deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
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
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
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
  origin: text('origin').$type<'capture' | 'cancel' | 'review_approve' | 'review_reject' | 'expiry'>().notNull(),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  status: text('status').$type<'pending' | 'succeeded' | 'failed'>().notNull().default('pending'),
  connectorReference: text('connector_reference'),
  failureReason: text('failure_reason'),
  attempts: integer('attempts').notNull().default(0),
  nextCheckAt: timestamp('next_check_at', { withTimezone: true, mode: 'date' }).notNull(),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
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
  nextCheckAt: timestamp('next_check_at', { withTimezone: true, mode: 'date' }).notNull(),
  settledAt: timestamp('settled_at', { withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
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
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);

// Hosted payment page sessions (0005_checkout.sql).
export const checkoutSessions = pgTable('checkout_sessions', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull(),
  paymentId: text('payment_id').notNull(),
  handoffExpiresAt: timestamp('handoff_expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  handedOffAt: timestamp('handed_off_at', { withTimezone: true, mode: 'date' }),
  attempts: integer('attempts').notNull().default(0),
  lastResultCode: text('last_result_code'),
  createdAt: createdAt(),
});
export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

// The sandbox's test clock (0014_sandbox_clock.sql): one row, business time's lead on the wall clock.
export const sandboxClock = pgTable('sandbox_clock', {
  id: boolean('id').primaryKey().default(true),
  offsetMs: bigint('offset_ms', { mode: 'number' }).notNull().default(0),
  /** The wall-clock time of the last advance (the database's own clock). */
  advancedAt: timestamp('advanced_at', { withTimezone: true, mode: 'date' }),
});

// The merchant portal (0015_portal.sql): staff members, sessions, one-time links, recovery codes, audit log.
const stamp = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

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
  lockedUntil: stamp('locked_until'),
  createdAt: stamp('created_at').notNull(),
  updatedAt: stamp('updated_at').notNull(),
}, () => [statusCheck('portal_users', MEMBER_MACHINE)]);
export type PortalUserRow = typeof portalUsers.$inferSelect;

export const portalSessions = pgTable('portal_sessions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  status: text('status').$type<SessionStatus>().notNull(),
  createdAt: stamp('created_at').notNull(),
  lastSeenAt: stamp('last_seen_at').notNull(),
  expiresAt: stamp('expires_at').notNull(),
  reauthAt: stamp('reauth_at'),
  pendingTotpSecret: text('pending_totp_secret'),
  pendingTotpKeyId: text('pending_totp_key_id'),
}, () => [statusCheck('portal_sessions', SESSION_MACHINE)]);
export type PortalSessionRow = typeof portalSessions.$inferSelect;

export const portalLinks = pgTable('portal_links', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  expiresAt: stamp('expires_at').notNull(),
  usedAt: stamp('used_at'),
  createdAt: stamp('created_at').notNull(),
});

export const portalRecoveryCodes = pgTable(
  'portal_recovery_codes',
  {
    userId: text('user_id').notNull(),
    codeHash: text('code_hash').notNull(),
    usedAt: stamp('used_at'),
    createdAt: stamp('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

export const portalAuditLog = pgTable('portal_audit_log', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  at: stamp('at').notNull(),
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
