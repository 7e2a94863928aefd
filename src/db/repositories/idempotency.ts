// Idempotency-Keys (src/http/plugins/idempotency.ts): a key is claimed by the first request with
// it, held by that request's process while it runs (a lease on the wall clock, renewed), and then
// keeps the answer. A retry takes over a key whose holder is gone: one conditional UPDATE naming
// the holder it replaces, so of N retries exactly one gets it.
import { randomBytes } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../client.ts';
import { idempotencyKeys } from '../schema.ts';
import { ALIVE_SECONDS } from './processes.ts';

/** How long a key is remembered, in wall time; after that the same key is a new request. */
export const KEY_DAYS = 7;

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

/** What a request claims a key with: the key, the operation and its body's fingerprint, the wall time. */
export interface KeyClaim {
  readonly accountId: string;
  readonly key: string;
  readonly operation: string;
  readonly requestFingerprint: string;
  readonly createdAt: Date;
}

/** Who holds a key while its request runs: a process's presence id, until a wall-clock time. */
export interface KeyHold {
  readonly holder: string;
  readonly heldUntil: Date;
}

const byKey = (accountId: string, key: string) => and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key));
const heldBy = (holder: string) => and(eq(idempotencyKeys.holder, holder), eq(idempotencyKeys.status, 'processing'));

/**
 * Claims the key for `hold`, with a scope of its own; null when it exists already (the caller
 * reads that one). `createdAt` is wall time: the purge compares it with the wall clock.
 */
export async function claimKey(db: Executor, row: KeyClaim & KeyHold): Promise<IdempotencyRow | null> {
  const scope = randomBytes(12).toString('base64url');
  const [claimed] = await db.insert(idempotencyKeys).values({ ...row, scope }).onConflictDoNothing().returning();
  return claimed ?? null;
}

export async function findKey(db: Executor, accountId: string, key: string): Promise<IdempotencyRow | null> {
  const [row] = await db.select().from(idempotencyKeys).where(byKey(accountId, key));
  return row ?? null;
}

/**
 * How long a holder's process must have been silent before its keys are taken over: longer than
 * the gateways-alive window (ALIVE_SECONDS), so that a live process whose beats were delayed by
 * a loaded machine keeps its requests (a takeover of a live one would be safe for the money,
 * the claims being unique, but two requests would answer), and shorter than a retry's wait.
 */
const HOLDER_SILENT_SECONDS = ALIVE_SECONDS * 3;

/**
 * Takes over a running key from `from.holder` when that holder is gone: released (no holder), its
 * lease over at `wallNow`, or its process no longer beating (process_heartbeats; a holder that
 * `runsHere` is alive whatever its beats say). The UPDATE names the holder it replaces, so among
 * concurrent retries one takes it and the others find the new holder. Null when not taken.
 */
export async function takeOverKey(
  db: Executor,
  take: KeyClaim & KeyHold & { readonly from: IdempotencyRow; readonly runsHere: boolean; readonly wallNow: Date },
): Promise<IdempotencyRow | null> {
  const previous = take.from.holder;
  const processGone = take.runsHere
    ? sql`false`
    : sql`NOT EXISTS (SELECT 1 FROM process_heartbeats h WHERE h.id = ${idempotencyKeys.holder} AND h.beat_at > now() - make_interval(secs => ${HOLDER_SILENT_SECONDS}))`;
  const [taken] = await db
    .update(idempotencyKeys)
    .set({ holder: take.holder, heldUntil: take.heldUntil })
    .where(
      and(
        byKey(take.accountId, take.key),
        eq(idempotencyKeys.status, 'processing'),
        eq(idempotencyKeys.requestFingerprint, take.requestFingerprint),
        previous === null ? isNull(idempotencyKeys.holder) : eq(idempotencyKeys.holder, previous),
        or(isNull(idempotencyKeys.holder), isNull(idempotencyKeys.heldUntil), lt(idempotencyKeys.heldUntil, take.wallNow), processGone),
      ),
    )
    .returning();
  return taken ?? null;
}

/** Pushes the holder's lease on; false when the key is no longer its own (taken over). */
export async function renewKey(db: Executor, accountId: string, key: string, hold: KeyHold): Promise<boolean> {
  const rows = await db
    .update(idempotencyKeys)
    .set({ heldUntil: hold.heldUntil })
    .where(and(byKey(accountId, key), heldBy(hold.holder)))
    .returning({ key: idempotencyKeys.key });
  return rows.length === 1;
}

/** Keeps the answer, if `holder` still holds the key (a holder taken over keeps nothing). */
export async function completeKey(
  db: Executor,
  accountId: string,
  key: string,
  holder: string,
  answer: { httpStatus: number; contentType: string; answer: string },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ status: 'done', holder: null, heldUntil: null, ...answer })
    .where(and(byKey(accountId, key), heldBy(holder)));
}

/**
 * Lets the key go without an answer (the request failed with a 5xx): the next request with the
 * same body takes it over at once, under the same scope, and finds what this one claimed.
 */
export async function releaseKey(db: Executor, accountId: string, key: string, holder: string): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ holder: null, heldUntil: null })
    .where(and(byKey(accountId, key), heldBy(holder)));
}

/** Forgets keys created before `before` (wall time). */
export async function purgeKeysBefore(db: Executor, before: Date): Promise<number> {
  return (await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).returning({ key: idempotencyKeys.key })).length;
}
