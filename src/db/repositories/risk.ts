import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../client.ts';

export interface VelocityQuery {
  readonly paymentId: string;
  readonly since: Date;
  readonly card?: { fingerprint: string; cap: number };
  readonly email?: { value: string; cap: number };
  readonly ip?: { value: string; cap: number };
}

/**
 * Previous payments in the window by card, email and IP (this payment excluded). Each count stops
 * at its cap (the rule's limit), so a busy card costs a bounded index scan, not a full count.
 */
export async function velocityCounts(db: Executor, q: VelocityQuery): Promise<{ card?: number; email?: number; ip?: number }> {
  const count = (column: string, value: string, cap: number) =>
    sql`(SELECT count(*)::int FROM (SELECT 1 FROM payments WHERE ${sql.raw(column)} = ${value} AND created_at >= ${q.since} AND id <> ${q.paymentId} LIMIT ${cap}) AS seen)`;
  const none = sql`NULL::int`;
  const [row] = await rowsOf<{ card: number | null; email: number | null; ip: number | null }>(db, sql`SELECT
      ${q.card ? count('card_fingerprint', q.card.fingerprint, q.card.cap) : none} AS card,
      ${q.email ? count('shopper_email', q.email.value, q.email.cap) : none} AS email,
      ${q.ip ? count('shopper_ip', q.ip.value, q.ip.cap) : none} AS ip`);
  return {
    ...(row!.card !== null ? { card: Number(row!.card) } : {}),
    ...(row!.email !== null ? { email: Number(row!.email) } : {}),
    ...(row!.ip !== null ? { ip: Number(row!.ip) } : {}),
  };
}

export interface BlocklistProbe {
  readonly accountId: string;
  readonly card?: string;
  readonly email?: string;
  readonly ip?: string;
  readonly bin?: string;
  readonly country?: string;
}

/** Kinds of blocklist entries (this account's or gateway-wide) that the payment matches. */
export async function blocklistHits(db: Executor, probe: BlocklistProbe): Promise<string[]> {
  const pairs = (['card', 'email', 'ip', 'bin', 'country'] as const)
    .filter((kind) => probe[kind] !== undefined)
    .map((kind) => sql`(kind = ${kind} AND value = ${probe[kind]!})`);
  if (pairs.length === 0) return [];
  const rows = await rowsOf<{ kind: string }>(
    db,
    sql`SELECT DISTINCT kind FROM risk_blocklist WHERE (account_id IS NULL OR account_id = ${probe.accountId}) AND (${sql.join(pairs, sql` OR `)})`,
  );
  return rows.map((row) => row.kind).sort();
}
