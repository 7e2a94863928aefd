// Portal sessions: the row's key is the SHA-256 of the cookie's token. A session's status
// (second factor due, enrolment due, active) moves only by a Transition of SESSION_MACHINE. Also
// the sign-ins finished lately: the pending sessions their last step replaced, by the same key.
import { and, eq, gt, lte, ne, sql } from 'drizzle-orm';
import type { SessionStatus } from '../../domain/members.ts';
import type { Entry, Transition } from '../../domain/state-machine.ts';
import type { Executor } from '../client.ts';
import { merchants, portalFinishedSignIns, portalSessions, portalUsers, type PortalSessionRow, type PortalUserRow } from '../schema.ts';

export async function insertSession(
  db: Executor,
  session: { id: string; userId: string; at: Date; expiresAt: Date; reauthAt?: Date },
  entry: Entry<SessionStatus>,
): Promise<void> {
  await db
    .insert(portalSessions)
    .values({ id: session.id, userId: session.userId, status: entry.to, createdAt: session.at, lastSeenAt: session.at, expiresAt: session.expiresAt, reauthAt: session.reauthAt ?? null });
}

/** The session, its member, and whether the member's merchant is active (an operator may disable it). */
export async function sessionWithMember(db: Executor, id: string): Promise<{ session: PortalSessionRow; member: PortalUserRow; merchantActive: boolean } | undefined> {
  const [row] = await db
    .select({ session: portalSessions, member: portalUsers, merchantStatus: merchants.status })
    .from(portalSessions)
    .innerJoin(portalUsers, eq(portalUsers.id, portalSessions.userId))
    .innerJoin(merchants, eq(merchants.id, portalUsers.merchantId))
    .where(eq(portalSessions.id, id));
  return row && { session: row.session, member: row.member, merchantActive: row.merchantStatus === 'active' };
}

// A session's pending TOTP key is set by offerPendingTotpSecret and taken by claimPendingTotpSecret alone.
export type SessionChange = Partial<Pick<PortalSessionRow, 'lastSeenAt' | 'reauthAt'>>;

/** Writes the session's move (or stay); false when it is gone or no longer in `from`. */
export async function updateSession(db: Executor, id: string, move: Transition<SessionStatus>, change: SessionChange): Promise<boolean> {
  const rows = await db
    .update(portalSessions)
    .set({ ...change, status: move.to })
    .where(and(eq(portalSessions.id, id), eq(portalSessions.status, move.from)))
    .returning({ id: portalSessions.id });
  return rows.length === 1;
}

export async function touchSession(db: Executor, id: string, at: Date): Promise<void> {
  await db.update(portalSessions).set({ lastSeenAt: at }).where(eq(portalSessions.id, id));
}

/**
 * Offers a key for the session to enrol (sealed), unless it has one pending already: answers the
 * key now pending, the one offered or the one another request set first (page loads at once, from
 * any process: they all show the first). The statement decides, on the row as it is when it runs:
 * no read before it. Undefined when the session is gone.
 */
export async function offerPendingTotpSecret(db: Executor, id: string, offered: { ciphertext: string; keyId: string }): Promise<{ ciphertext: string; keyId: string } | undefined> {
  const [row] = await db
    .update(portalSessions)
    .set({
      pendingTotpSecret: sql`coalesce(${portalSessions.pendingTotpSecret}, ${offered.ciphertext})`,
      pendingTotpKeyId: sql`case when ${portalSessions.pendingTotpSecret} is null then ${offered.keyId} else ${portalSessions.pendingTotpKeyId} end`,
    })
    .where(eq(portalSessions.id, id))
    .returning({ ciphertext: portalSessions.pendingTotpSecret, keyId: portalSessions.pendingTotpKeyId });
  return row && { ciphertext: row.ciphertext!, keyId: row.keyId! };
}

/**
 * Takes the key a session is enrolling (set by offerPendingTotpSecret), once: true for the one
 * confirmation that finds it still there and clears it, false for any other (sent at the same
 * time, from any process, with the same code). The statement is the claim; no read before it decides.
 */
export async function claimPendingTotpSecret(db: Executor, id: string, sealed: string): Promise<boolean> {
  const rows = await db
    .update(portalSessions)
    .set({ pendingTotpSecret: null, pendingTotpKeyId: null })
    .where(and(eq(portalSessions.id, id), eq(portalSessions.pendingTotpSecret, sealed)))
    .returning({ id: portalSessions.id });
  return rows.length === 1;
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.delete(portalSessions).where(eq(portalSessions.id, id));
}

/** Ends every session of the member (sign out everywhere, a new password, disabling); answers how many. */
export async function deleteSessionsOf(db: Executor, userId: string): Promise<number> {
  const rows = await db.delete(portalSessions).where(eq(portalSessions.userId, userId)).returning({ id: portalSessions.id });
  return rows.length;
}

/** Ends every portal session of the merchant's members (the merchant disabled); answers how many. */
export async function deleteSessionsOfMerchant(db: Executor, merchantId: string): Promise<number> {
  const rows = await db
    .delete(portalSessions)
    .where(sql`${portalSessions.userId} IN (SELECT ${portalUsers.id} FROM ${portalUsers} WHERE ${portalUsers.merchantId} = ${merchantId})`)
    .returning({ id: portalSessions.id });
  return rows.length;
}

/** Ends every session of the member but `keptId` (a credential changed in that session); answers how many. */
export async function deleteOtherSessionsOf(db: Executor, userId: string, keptId: string): Promise<number> {
  const rows = await db
    .delete(portalSessions)
    .where(and(eq(portalSessions.userId, userId), ne(portalSessions.id, keptId)))
    .returning({ id: portalSessions.id });
  return rows.length;
}

/** Sessions past their limits, for the periodic clean-up. */
export async function deleteExpiredSessions(db: Executor, at: Date, idleMs: number): Promise<number> {
  const rows = await db
    .delete(portalSessions)
    .where(sql`${portalSessions.expiresAt} <= ${at} OR ${portalSessions.lastSeenAt} <= ${new Date(at.getTime() - idleMs)}`)
    .returning({ id: portalSessions.id });
  return rows.length;
}

/** Remembers that the pending session `id` was replaced by the signed-in one its sign-in's last step opened. */
export async function insertFinishedSignIn(db: Executor, id: string, rememberedUntil: Date): Promise<void> {
  await db.insert(portalFinishedSignIns).values({ id, rememberedUntil });
}

/** Whether the pending session `id` finished its sign-in (was replaced) and is still remembered at `at`. */
export async function isFinishedSignIn(db: Executor, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .select({ id: portalFinishedSignIns.id })
    .from(portalFinishedSignIns)
    .where(and(eq(portalFinishedSignIns.id, id), gt(portalFinishedSignIns.rememberedUntil, at)));
  return rows.length === 1;
}

/** Finished sign-ins no longer remembered at `at`, for the periodic clean-up. */
export async function deleteForgottenSignIns(db: Executor, at: Date): Promise<number> {
  const rows = await db.delete(portalFinishedSignIns).where(lte(portalFinishedSignIns.rememberedUntil, at)).returning({ id: portalFinishedSignIns.id });
  return rows.length;
}
