// Delivers the outbox to merchants (docs/notifications.md): claim due events with a lease, send each one
// outside any transaction, record the attempt and schedule the next one. A worker that dies
// between claim and record leaves its lease to run out; the event is then due again (the receiver
// may see that notify_id twice, which is why it stays the same). The retry schedule runs on the
// wall clock (deps.wallClock, as every lease: QUEUES.dueNotifications), never on the sandbox's
// business time, so advancing `acquiro clock` does not rush a merchant's retries; a test, whose
// wall clock is its FakeClock, runs the three-day schedule by moving it. notify_time is the wall
// clock's too, so receivers' 300-second check holds after the sandbox's clock is advanced.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.ts';
import { sign, type SignedBody } from '../../domain/signature.ts';
import {
  claimDue,
  claimForReplay,
  currentKey,
  recordAttempt,
  type AttemptRecord,
  type Claim,
  type Lease,
} from '../../db/repositories/notifications.ts';
import { nextAttemptAt } from './schedule.ts';
import { lease as leaseFor } from '../../db/repositories/leases.ts';
import { ATTEMPT_TIMEOUT_MS, networkTransport, sendNotification, type Sent, type Transport } from './transport.ts';

export type DeliveryDeps = Pick<Deps, 'database' | 'vault' | 'config' | 'clock' | 'wallClock'> & Partial<Pick<Deps, 'log'>>;

export interface DeliveryOptions {
  readonly transport?: Transport;
  /** Events claimed (and sent concurrently) per round. */
  readonly batchSize?: number;
  readonly timeoutMs?: number;
}

/** Longer than any attempt can take, so a lease only runs out when its worker is gone. */
export const LEASE_MS = 60_000;
const BATCH_SIZE = 16;

export interface AttemptResult extends AttemptRecord {
  readonly notifyId: string;
  readonly attempt: number;
}

/** One round of the worker task: answers how many attempts it made. */
export async function deliverDueNotifications(deps: DeliveryDeps, options: DeliveryOptions = {}): Promise<number> {
  const claims = await claimDue(deps.database.db, lease(deps), notifyTime(deps), options.batchSize ?? BATCH_SIZE);
  const secrets = new Map<string, Promise<string>>();
  const secretOf = (accountId: string) => {
    if (!secrets.has(accountId)) secrets.set(accountId, signingSecret(deps, accountId));
    return secrets.get(accountId)!;
  };
  await Promise.all(claims.map((claim) => attempt(deps, claim, secretOf, options)));
  return claims.length;
}

export type ReplayResult = AttemptResult | { readonly refused: 'in_flight' | 'not_found' | 'no_target' };

/**
 * Sends an event again now, whatever its status: the same notify_id with a fresh notify_time and
 * signature. Its retry schedule starts over, so a replay that fails is retried like a new event.
 */
export async function replayNotification(deps: DeliveryDeps, notifyId: string, options: DeliveryOptions = {}): Promise<ReplayResult> {
  const claim = await claimForReplay(deps.database.db, notifyId, lease(deps), notifyTime(deps));
  if (claim) return attempt(deps, claim, (accountId) => signingSecret(deps, accountId), options);
  const [row] = await deps.database.query<{ notify_url: string | null }>('SELECT notify_url FROM events WHERE id = $1', [notifyId]);
  return { refused: !row ? 'not_found' : row.notify_url === null ? 'no_target' : 'in_flight' };
}

/** The body as sent: the event, its notify_id and notify_time, signed over the whole (docs/signing.md). */
export function notificationBody(claim: Pick<Claim, 'id' | 'payload' | 'notifyTime'>, secret: string): Record<string, unknown> {
  const body = { ...claim.payload, notify_id: claim.id, notify_time: claim.notifyTime };
  return { ...body, encryption_data: sign(body as SignedBody, secret) };
}

/** Unix seconds on the wall clock: what the receiver compares with its own clock. */
function notifyTime(deps: DeliveryDeps): number {
  return Math.floor(deps.wallClock.now().getTime() / 1000);
}

/** A lease on the wall clock, as every lease (the retry schedule counts from its `now` too). */
function lease(deps: DeliveryDeps): Lease {
  return leaseFor(deps, LEASE_MS, randomUUID());
}

async function signingSecret(deps: DeliveryDeps, accountId: string): Promise<string> {
  const key = await currentKey(deps.database.db, accountId);
  if (!key) throw new Error(`account ${accountId} has no current secret key`);
  return deps.vault.open({ ciphertext: key.secretCiphertext, keyId: key.vaultKeyId }, key.id);
}

async function attempt(
  deps: DeliveryDeps,
  claim: Claim,
  secretOf: (accountId: string) => Promise<string>,
  options: DeliveryOptions,
): Promise<AttemptResult> {
  let sent: Sent;
  try {
    const body = notificationBody(claim, await secretOf(claim.accountId));
    sent = await sendNotification(options.transport ?? networkTransport, deps.config.mode, claim.notifyUrl, JSON.stringify(body), options.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
  } catch (error) {
    // Not the receiver's fault (a vault key missing, say): logged, and retried on the schedule.
    deps.log?.error({ err: error, notifyId: claim.id }, 'notification could not be prepared');
    sent = { kind: 'error', error: 'the gateway could not prepare the notification', latencyMs: 0 };
  }
  const record = outcomeOf(claim, sent);
  const held = await recordAttempt(deps.database.db, claim, record);
  const result = { ...record, notifyId: claim.id, attempt: claim.attempt };
  const logged = { notifyId: claim.id, attempt: claim.attempt, outcome: record.outcome, httpStatus: record.httpStatus, status: record.status };
  if (!held) deps.log?.warn(logged, 'notification attempt finished after its lease ran out; another worker owns the event');
  else deps.log?.info(logged, 'notification attempt');
  return result;
}

function outcomeOf(claim: Claim, sent: Sent): AttemptRecord {
  if (sent.kind === 'answered' && sent.answer.status >= 200 && sent.answer.status < 300) {
    return {
      outcome: 'delivered',
      httpStatus: sent.answer.status,
      latencyMs: sent.latencyMs,
      responseExcerpt: sent.answer.excerpt,
      status: 'delivered',
      failures: claim.failures,
      nextAttemptAt: null,
      deliveredAt: claim.startedAt,
    };
  }
  const failures = claim.failures + 1;
  const permanent = sent.kind === 'refused' && sent.permanent;
  const next = permanent ? null : nextAttemptAt(claim.id, failures, claim.startedAt);
  const schedule = { status: next ? ('pending' as const) : ('failed' as const), failures, nextAttemptAt: next };
  switch (sent.kind) {
    case 'answered':
      return { outcome: 'failed', httpStatus: sent.answer.status, latencyMs: sent.latencyMs, responseExcerpt: sent.answer.excerpt, ...schedule };
    case 'error':
      return { outcome: 'failed', latencyMs: sent.latencyMs, error: sent.error, ...schedule };
    case 'refused':
      return { outcome: 'refused', error: sent.reason, ...schedule };
  }
}
