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
  /** Attempts this worker keeps in flight at once (its slots). */
  readonly maxInFlight?: number;
  /** Attempts in flight to one account at once, across every worker. */
  readonly perAccount?: number;
  readonly timeoutMs?: number;
  /** How long a round waits for its attempts before it hands back to the runner (they go on meanwhile). */
  readonly roundMs?: number;
}

/** Longer than any attempt can take, so a lease only runs out when its worker is gone. */
export const LEASE_MS = 60_000;
const MAX_IN_FLIGHT = 16;
/** A quarter of a worker's slots: a merchant whose receiver hangs leaves the other 12 to everyone else. */
const PER_ACCOUNT = 4;
/** The task's own poll interval: a round lasts no longer than an idle worker's pause. */
const ROUND_MS = 1_000;

export interface AttemptResult extends AttemptRecord {
  readonly notifyId: string;
  readonly attempt: number;
}

/**
 * One round of the worker task: claims as many due events as it has free slots, starts their
 * attempts, and answers how many once they have all ended or `roundMs` has passed. An attempt
 * still running then goes on holding its slot (and its lease) while later rounds fill the others:
 * a receiver that hangs for its 10 s holds one slot, not the worker.
 */
export async function deliverDueNotifications(deps: DeliveryDeps, options: DeliveryOptions = {}): Promise<number> {
  const running = inFlight(deps);
  const free = (options.maxInFlight ?? MAX_IN_FLIGHT) - running.size;
  if (free <= 0) return 0;
  const claims = await claimDue(deps.database.db, lease(deps), notifyTime(deps), free, options.perAccount ?? PER_ACCOUNT);
  const secrets = new Map<string, Promise<string>>();
  const secretOf = (accountId: string) => {
    if (!secrets.has(accountId)) secrets.set(accountId, signingSecret(deps, accountId));
    return secrets.get(accountId)!;
  };
  const round = Promise.all(claims.map((claim) => holdingSlot(running, attempt(deps, claim, secretOf, options))));
  if (await endsWithin(round, options.roundMs ?? ROUND_MS)) await round;
  // Left running: a failure to record (the database away) cannot reach the runner any more; the
  // lease then runs out and the event is sent again, as when a worker dies.
  else round.catch((error: unknown) => deps.log?.error({ err: error }, 'notification attempts could not be recorded'));
  return claims.length;
}

/** Waits for the attempts still in flight from earlier rounds: a worker that stops lets them end and be recorded. */
export async function notificationsInFlight(deps: DeliveryDeps): Promise<void> {
  await Promise.all(inFlight(deps));
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

// The slots of each worker, by its database: the runner calls the task afresh each round, and tests
// run several workers (databases) in one process. A slot is the attempt's end, which never rejects.
const slots = new WeakMap<DeliveryDeps['database'], Set<Promise<void>>>();

function inFlight(deps: DeliveryDeps): Set<Promise<void>> {
  let running = slots.get(deps.database);
  if (!running) slots.set(deps.database, (running = new Set()));
  return running;
}

function holdingSlot<T>(running: Set<Promise<void>>, work: Promise<T>): Promise<T> {
  const slot: Promise<void> = work.then(
    () => void running.delete(slot),
    () => void running.delete(slot),
  );
  running.add(slot);
  return work;
}

/** Whether `work` settles within `ms` (its failure included: the caller awaits it for that). */
async function endsWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const ended = work.then(
    () => true as const,
    () => true as const,
  );
  return Promise.race([ended, late]).finally(() => clearTimeout(timer));
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
    sent = await sendNotification(options.transport ?? networkTransport, deps.config.mode, claim.notifyUrl, JSON.stringify(body), options.timeoutMs ?? ATTEMPT_TIMEOUT_MS, claim.accountId);
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
