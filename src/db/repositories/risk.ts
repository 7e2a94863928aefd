// The facts the risk rules need, in one round trip: previous payments in the velocity window by
// card, email and IP (each count stops at its cap, so a busy card costs a bounded index scan),
// and the blocklist entries the payment matches. The direct card payment reads them in the very
// statement that claims its order (payments.ts); other paths ask with RISK_FACTS_SQL.
import type { Database } from '../client.ts';

export interface RiskProbe {
  readonly accountId: string;
  readonly paymentId: string;
  readonly since: Date;
  /** Velocity is not counted when absent (sandbox test cards). */
  readonly velocity?: { cardCap: number; emailCap: number; ipCap: number };
  readonly card: string;
  /** The card's first eight digits (or fewer): a blocked BIN of six, seven or eight digits matches its prefix. */
  readonly bin: string;
  readonly email?: string | undefined;
  readonly ip?: string | undefined;
  readonly country?: string | undefined;
}

export interface RiskRecord {
  readonly velocity: { card?: number; email?: number; ip?: number };
  readonly blocklistHits: string[];
}

/** The facts as select-list columns (card, email, ip, blocked); their 11 parameters start after `offset`. */
export function riskFactsColumns(offset: number): string {
  const $ = (n: number) => `$${n + offset}`;
  return `
    CASE WHEN ${$(4)}::int IS NULL THEN NULL ELSE (SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE card_fingerprint = ${$(5)} AND created_at >= ${$(2)} AND id <> ${$(3)} LIMIT ${$(4)}) AS seen) END AS risk_card,
    CASE WHEN ${$(7)}::text IS NULL OR ${$(6)}::int IS NULL THEN NULL ELSE (SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE shopper_email = ${$(7)} AND created_at >= ${$(2)} AND id <> ${$(3)} LIMIT ${$(6)}) AS seen) END AS risk_email,
    CASE WHEN ${$(9)}::text IS NULL OR ${$(8)}::int IS NULL THEN NULL ELSE (SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE shopper_ip = ${$(9)} AND created_at >= ${$(2)} AND id <> ${$(3)} LIMIT ${$(8)}) AS seen) END AS risk_ip,
    (SELECT coalesce(array_agg(DISTINCT kind ORDER BY kind), '{}') FROM risk_blocklist
      WHERE (account_id IS NULL OR account_id = ${$(1)})
        AND ((kind = 'card' AND value = ${$(5)}) OR (kind = 'bin' AND value IN (left(${$(10)}, 6), left(${$(10)}, 7), left(${$(10)}, 8))) OR (kind = 'email' AND value = ${$(7)})
          OR (kind = 'ip' AND value = ${$(9)}) OR (kind = 'country' AND value = ${$(11)}))) AS risk_blocked`;
}

export function riskParams(probe: RiskProbe): unknown[] {
  return [
    probe.accountId,
    probe.since,
    probe.paymentId,
    probe.velocity?.cardCap ?? null,
    probe.card,
    probe.velocity?.emailCap ?? null,
    probe.email ?? null,
    probe.velocity?.ipCap ?? null,
    probe.ip ?? null,
    probe.bin,
    probe.country ?? null,
  ];
}

export interface RiskColumns {
  readonly risk_card: number | null;
  readonly risk_email: number | null;
  readonly risk_ip: number | null;
  readonly risk_blocked: string[] | string;
}

export function riskRecordOf(row: RiskColumns): RiskRecord {
  const count = (value: number | null) => (value === null ? undefined : Number(value));
  const card = count(row.risk_card);
  const email = count(row.risk_email);
  const ip = count(row.risk_ip);
  return {
    velocity: { ...(card !== undefined ? { card } : {}), ...(email !== undefined ? { email } : {}), ...(ip !== undefined ? { ip } : {}) },
    blocklistHits: Array.isArray(row.risk_blocked) ? row.risk_blocked : parsePgArray(row.risk_blocked),
  };
}

export const RISK_FACTS_SQL = `SELECT ${riskFactsColumns(0)}`;

export async function riskRecord(database: Database, probe: RiskProbe): Promise<RiskRecord> {
  const [row] = await database.query<RiskColumns>(RISK_FACTS_SQL, riskParams(probe), 'risk_facts');
  return riskRecordOf(row!);
}

/** `{a,b}` → ['a', 'b'] (drivers that leave arrays as text). */
function parsePgArray(text: string): string[] {
  const inner = text.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',') : [];
}
