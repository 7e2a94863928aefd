// The audit log's rows: appended one at a time in seq order under a transaction-scoped advisory
// lock (the gateway's role may not lock the table itself: it has SELECT and INSERT only), read
// back per merchant for the portal and in full, in order, for `acquiro audit verify`.
import { and, asc, desc, eq, gt, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../client.ts';
import type { Executor } from '../client.ts';
import { portalAuditLog, type AuditRow } from '../schema.ts';

/** Serialises appends: each row quotes the hash of the one before it. */
const AUDIT_LOCK = 72616315;

export async function lockAuditChain(tx: Tx): Promise<AuditRow | undefined> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${AUDIT_LOCK})`);
  const [last] = await tx.select().from(portalAuditLog).orderBy(desc(portalAuditLog.seq)).limit(1);
  return last;
}

export async function insertAuditRow(tx: Tx, row: AuditRow): Promise<void> {
  await tx.insert(portalAuditLog).values(row);
}

/** Rows after `afterSeq`, in order, `limit` at a time (verify walks the whole chain this way). */
export async function auditRowsAfter(db: Executor, afterSeq: number, limit: number): Promise<AuditRow[]> {
  return db.select().from(portalAuditLog).where(gt(portalAuditLog.seq, afterSeq)).orderBy(asc(portalAuditLog.seq)).limit(limit);
}

export interface AuditFilter {
  readonly merchantId: string;
  readonly email?: string;
  readonly action?: string;
  readonly outcome?: string;
  readonly from?: Date;
  readonly to?: Date;
  /** Rows before this seq (paging backwards from the newest). */
  readonly beforeSeq?: number;
  readonly limit: number;
}

/** A merchant's rows, newest first. */
export async function auditRowsOf(db: Executor, filter: AuditFilter): Promise<AuditRow[]> {
  const conditions: SQL[] = [eq(portalAuditLog.merchantId, filter.merchantId)];
  if (filter.email) conditions.push(sql`lower(${portalAuditLog.email}) = lower(${filter.email})`);
  if (filter.action) conditions.push(eq(portalAuditLog.action, filter.action));
  if (filter.outcome) conditions.push(eq(portalAuditLog.outcome, filter.outcome as AuditRow['outcome']));
  if (filter.from) conditions.push(gte(portalAuditLog.at, filter.from));
  if (filter.to) conditions.push(lt(portalAuditLog.at, filter.to));
  if (filter.beforeSeq !== undefined) conditions.push(lt(portalAuditLog.seq, filter.beforeSeq));
  return db.select().from(portalAuditLog).where(and(...conditions)).orderBy(desc(portalAuditLog.seq)).limit(filter.limit);
}
