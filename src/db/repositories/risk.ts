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

/** RiskProbe's fields in the order of riskParams, as the SQL names them (riskFactsOf's references). */
export const RISK_FIELDS = ['account_id', 'since', 'payment_id', 'card_cap', 'card', 'email_cap', 'email', 'ip_cap', 'ip', 'bin', 'country'] as const;
export type RiskField = (typeof RISK_FIELDS)[number];

/** The facts as select-list columns (card, email, ip, blocked); their 11 parameters start after `offset`. */
export function riskFactsColumns(offset: number): string {
  return riskFactsOf((field) => `$${RISK_FIELDS.indexOf(field) + 1 + offset}`);
}

/** The facts as select-list columns, each input named by `ref` (a parameter, or a column of a batch's rows). */
export function riskFactsOf(ref: (field: RiskField) => string): string {
  return `
    CASE WHEN ${ref('card_cap')}::int IS NULL THEN NULL ELSE (SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE card_fingerprint = ${ref('card')} AND created_at >= ${ref('since')} AND id <> ${ref('payment_id')} LIMIT ${ref('card_cap')}) AS seen) END AS risk_card,
    CASE WHEN ${ref('email')}::text IS NULL OR ${ref('email_cap')}::int IS NULL THEN NULL ELSE (SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE shopper_email = ${ref('email')} AND created_at >= ${ref('since')} AND id <> ${ref('payment_id')} LIMIT ${ref('email_cap')}) AS seen) END AS risk_email,
    CASE WHEN ${ref('ip')}::text IS NULL OR ${ref('ip_cap')}::int IS NULL THEN NULL ELSE (SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE shopper_ip = ${ref('ip')} AND created_at >= ${ref('since')} AND id <> ${ref('payment_id')} LIMIT ${ref('ip_cap')}) AS seen) END AS risk_ip,
    (SELECT coalesce(array_agg(DISTINCT kind ORDER BY kind), '{}') FROM risk_blocklist
      WHERE (account_id IS NULL OR account_id = ${ref('account_id')})
        AND ((kind = 'card' AND value = ${ref('card')}) OR (kind = 'bin' AND value IN (left(${ref('bin')}, 6), left(${ref('bin')}, 7), left(${ref('bin')}, 8))) OR (kind = 'email' AND value = ${ref('email')})
          OR (kind = 'ip' AND value = ${ref('ip')}) OR (kind = 'country' AND value = ${ref('country')}))) AS risk_blocked`;
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
