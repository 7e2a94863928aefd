// The portal's staff members, their one-time links and recovery codes. A member's status is
// written only from a Transition of MEMBER_MACHINE, where the row still is in its `from` state.
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Entry, Transition } from '../../domain/state-machine.ts';
import type { MemberStatus, Role } from '../../domain/members.ts';
import { PLATFORM_MERCHANT_ID } from '../../domain/ledger.ts';
import type { Executor } from '../client.ts';
import { merchants, portalLinks, portalRecoveryCodes, portalUsers, type PortalUserRow } from '../schema.ts';

export async function insertMember(
  db: Executor,
  row: { id: string; merchantId: string; email: string; role: Role; passwordHash: string | null; at: Date },
  entry: Entry<MemberStatus>,
): Promise<PortalUserRow | undefined> {
  const [inserted] = await db
    .insert(portalUsers)
    .values({ id: row.id, merchantId: row.merchantId, email: row.email, role: row.role, status: entry.to, passwordHash: row.passwordHash, createdAt: row.at, updatedAt: row.at })
    .onConflictDoNothing()
    .returning();
  return inserted;
}

/**
 * The members with this address, the one that can sign in first: at most one is past its
 * invitation (active or disabled, across the gateway), while several merchants may have invited
 * the address (0030).
 */
export async function membersByEmail(db: Executor, email: string): Promise<PortalUserRow[]> {
  return db
    .select()
    .from(portalUsers)
    .where(sql`lower(${portalUsers.email}) = lower(${email})`)
    .orderBy(sql`${portalUsers.status} = 'invited'`, asc(portalUsers.createdAt), asc(portalUsers.id));
}

/** The member an address signs in as: the one past its invitation, else an invited one (who cannot sign in yet). */
export async function memberByEmail(db: Executor, email: string): Promise<PortalUserRow | undefined> {
  return (await membersByEmail(db, email))[0];
}

/** Whether another member already signs in with this address (or did, and was disabled): it cannot be taken again. */
export async function addressTaken(db: Executor, email: string, exceptUserId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: portalUsers.id })
    .from(portalUsers)
    .where(and(sql`lower(${portalUsers.email}) = lower(${email})`, sql`${portalUsers.status} <> 'invited'`, sql`${portalUsers.id} <> ${exceptUserId}`));
  return row !== undefined;
}

/** The member, only within its merchant: another merchant's member is not found. */
export async function memberOf(db: Executor, merchantId: string, userId: string, options: { lock?: boolean } = {}): Promise<PortalUserRow | undefined> {
  const query = db.select().from(portalUsers).where(and(eq(portalUsers.merchantId, merchantId), eq(portalUsers.id, userId)));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

/**
 * The merchant's members with these ids, locked in id order: two changes that lock the same two
 * members (each the other's actor and target) take them in one order, so one waits for the other.
 */
export async function lockMembersOf(db: Executor, merchantId: string, userIds: readonly string[]): Promise<PortalUserRow[]> {
  return db
    .select()
    .from(portalUsers)
    .where(and(eq(portalUsers.merchantId, merchantId), inArray(portalUsers.id, [...userIds])))
    .orderBy(asc(portalUsers.id))
    .for('update');
}

export async function memberById(db: Executor, userId: string, options: { lock?: boolean } = {}): Promise<PortalUserRow | undefined> {
  const query = db.select().from(portalUsers).where(eq(portalUsers.id, userId));
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

export async function membersOf(db: Executor, merchantId: string): Promise<PortalUserRow[]> {
  return db.select().from(portalUsers).where(eq(portalUsers.merchantId, merchantId)).orderBy(asc(portalUsers.createdAt), asc(portalUsers.id));
}

export type MemberChange = Partial<Pick<PortalUserRow, 'role' | 'passwordHash' | 'totpSecret' | 'totpKeyId' | 'totpLastStep' | 'failedAttempts' | 'lockedUntil'>>;

/** Writes the member's move (or stay) and other columns; false when it was no longer in `from`. */
export async function updateMember(db: Executor, userId: string, move: Transition<MemberStatus>, change: MemberChange, at: Date): Promise<boolean> {
  const rows = await db
    .update(portalUsers)
    .set({ ...change, status: move.to, updatedAt: at })
    .where(and(eq(portalUsers.id, userId), eq(portalUsers.status, move.from)))
    .returning({ id: portalUsers.id });
  return rows.length === 1;
}

export async function insertLink(db: Executor, link: { id: string; userId: string; expiresAt: Date; at: Date }): Promise<void> {
  await db.insert(portalLinks).values({ id: link.id, userId: link.userId, expiresAt: link.expiresAt, createdAt: link.at });
}

/** The member a link is for, while it is unused and unexpired. */
export async function linkHolder(db: Executor, id: string, at: Date, options: { lock?: boolean } = {}): Promise<string | undefined> {
  const query = db
    .select({ userId: portalLinks.userId })
    .from(portalLinks)
    .where(and(eq(portalLinks.id, id), isNull(portalLinks.usedAt), sql`${portalLinks.expiresAt} > ${at}`));
  const [row] = options.lock ? await query.for('update') : await query;
  return row?.userId;
}

/** Marks every unused link of the member used: a link is good once, and a new one supersedes the old. */
export async function retireLinks(db: Executor, userId: string, at: Date): Promise<void> {
  await db.update(portalLinks).set({ usedAt: at }).where(and(eq(portalLinks.userId, userId), isNull(portalLinks.usedAt)));
}

export async function replaceRecoveryCodes(db: Executor, userId: string, hashes: readonly string[], at: Date): Promise<void> {
  await db.delete(portalRecoveryCodes).where(eq(portalRecoveryCodes.userId, userId));
  if (hashes.length > 0) await db.insert(portalRecoveryCodes).values(hashes.map((codeHash) => ({ userId, codeHash, createdAt: at })));
}

/** Spends a recovery code: true once per code. */
export async function useRecoveryCode(db: Executor, userId: string, codeHash: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(portalRecoveryCodes)
    .set({ usedAt: at })
    .where(and(eq(portalRecoveryCodes.userId, userId), eq(portalRecoveryCodes.codeHash, codeHash), isNull(portalRecoveryCodes.usedAt)))
    .returning({ userId: portalRecoveryCodes.userId });
  return rows.length === 1;
}

export async function unusedRecoveryCodes(db: Executor, userId: string): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(portalRecoveryCodes)
    .where(and(eq(portalRecoveryCodes.userId, userId), isNull(portalRecoveryCodes.usedAt)));
  return row?.count ?? 0;
}

/** A merchant's: the ledger's own `platform` books have no members. */
export async function merchantExists(db: Executor, merchantId: string): Promise<boolean> {
  if (merchantId === PLATFORM_MERCHANT_ID) return false;
  const [row] = await db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId));
  return row !== undefined;
}
