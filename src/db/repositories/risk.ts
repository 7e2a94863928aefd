// The facts the risk rules need, in one round trip: previous payments in the velocity window by
// card, email and IP (each count stops at its cap, so a busy card costs a bounded index scan),
// and the blocklist entries the payment matches. The direct card payment reads them in the very
// statement that claims its order (payments.ts); other paths ask with riskRecord.
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

/** The velocity counts a probe can ask for, each by its cap and the value it counts. */
const VELOCITY = [
  { fact: 'card', cap: 'card_cap', value: 'card' },
  { fact: 'email', cap: 'email_cap', value: 'email' },
  { fact: 'ip', cap: 'ip_cap', value: 'ip' },
] as const;
type Velocity = (typeof VELOCITY)[number];
const COLUMN_OF: Record<Velocity['fact'], string> = { card: 'card_fingerprint', email: 'shopper_email', ip: 'shopper_ip' };

/**
 * The velocity counts that parameters starting after `offset` (riskParams' order) ask for: a count
 * is read where its cap is given, and for email and IP their value too (a card's is always given).
 */
export function askedVelocity(params: readonly unknown[], offset: number): readonly Velocity['fact'][] {
  const given = (field: RiskField) => params[offset + RISK_FIELDS.indexOf(field)] != null;
  return VELOCITY.filter(({ fact, cap, value }) => given(cap) && (fact === 'card' || given(value))).map(({ fact }) => fact);
}

/**
 * The facts as select-list columns (card, email, ip, blocked) for parameters starting after
 * `offset`, with only the velocity counts `asked` in the text (the others NULL); and `unasked`, a
 * CTE (for the statement's WITH list), never read, that gives their type to the parameters no
 * count asked reads (the caps not asked; the window and payment when none is).
 *
 * One text per set of asked counts, rather than one text whose CASEs drop the counts not asked: as
 * a prepared statement, PostgreSQL plans the latter again for every execution, since a plan for
 * the parameters' values (which folds those counts away) always looks cheaper than the generic plan
 * with all three counts. Planning the claim was a third of PostgreSQL's CPU for a card payment sent
 * alone (docs/performance.md, "Plans of the hot statements"); each text's generic plan is reused.
 */
export function riskFactsForParams(offset: number, asked: readonly Velocity['fact'][]): { columns: string; unasked: string | undefined } {
  const ref = (field: RiskField) => `$${RISK_FIELDS.indexOf(field) + 1 + offset}`;
  // The window and the payment are read by the counts only.
  const window = asked.length === 0 ? [`${ref('since')}::timestamptz`, `${ref('payment_id')}::text`] : [];
  const untyped = [...VELOCITY.filter(({ fact }) => !asked.includes(fact)).map(({ cap }) => `${ref(cap)}::int`), ...window];
  const columns = riskFactsOf(ref, (velocity) => (asked.includes(velocity.fact) ? count(velocity, ref) : 'NULL::int'));
  return { columns, unasked: untyped.length > 0 ? `unasked AS (SELECT ${untyped.join(', ')})` : undefined };
}

/**
 * A batch's facts, each count asked or not by its own row's inputs (columns named by `ref`). The
 * statement's snapshot holds none of the batch's own rows, so each count adds `earlier`: the
 * batch's payments before this one whose `column` holds the counted value (SQL for the number),
 * and stops at the cap, as the payments counted one after the other would.
 */
export function riskFactsOfRows(ref: (field: RiskField) => string, earlier: (column: string, value: string) => string): string {
  return riskFactsOf(ref, (velocity) => {
    const unasked = velocity.fact === 'card' ? `${ref(velocity.cap)}::int IS NULL` : `${ref(velocity.value)}::text IS NULL OR ${ref(velocity.cap)}::int IS NULL`;
    const seen = `least(${count(velocity, ref)} + ${earlier(COLUMN_OF[velocity.fact], ref(velocity.value))}, ${ref(velocity.cap)})`;
    return `CASE WHEN ${unasked} THEN NULL ELSE ${seen} END`;
  });
}

/** Previous payments with the velocity's value in the window, counted up to its cap (a bounded index scan). */
const count = ({ fact, cap, value }: Velocity, ref: (field: RiskField) => string) =>
  `(SELECT count(*)::int FROM (SELECT 1 FROM payments
      WHERE ${COLUMN_OF[fact]} = ${ref(value)} AND created_at >= ${ref('since')} AND id <> ${ref('payment_id')} LIMIT ${ref(cap)}) AS seen)`;

function riskFactsOf(ref: (field: RiskField) => string, velocity: (velocity: Velocity) => string): string {
  return `
    ${VELOCITY.map((v) => `${velocity(v)} AS risk_${v.fact}`).join(',\n    ')},
    (SELECT coalesce(array_agg(DISTINCT kind ORDER BY kind), '{}') FROM risk_blocklist
      WHERE (account_id IS NULL OR account_id = ${ref('account_id')})
        AND ((kind = 'card' AND value = ${ref('card')}) OR (kind = 'bin' AND value IN (left(${ref('bin')}, 6), left(${ref('bin')}, 7), left(${ref('bin')}, 8))) OR (kind = 'email' AND value = ${ref('email')})
          OR (kind = 'ip' AND value = ${ref('ip')}) OR (kind = 'country' AND value = ${ref('country')}))) AS risk_blocked`;
}

/**
 * A statement that reads the facts from its parameters (starting after `offset`), in the text for
 * the counts they ask for (riskFactsForParams), named `name` and the counts: `base` builds the text
 * from the columns and the CTE that types the parameters no count reads, if any (PostgreSQL
 * leaves a CTE nothing refers to out of the plan).
 */
export function byAskedVelocity(
  name: string,
  offset: number,
  base: (facts: { columns: string; unasked: string | undefined }) => string,
): (params: readonly unknown[]) => { text: string; name: string } {
  const statements = new Map<string, { text: string; name: string }>();
  return (params) => {
    const asked = askedVelocity(params, offset);
    const key = asked.join('+');
    let statement = statements.get(key);
    if (!statement) {
      statement = { text: base(riskFactsForParams(offset, asked)), name: key ? `${name}+${key}` : name };
      statements.set(key, statement);
    }
    return statement;
  };
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

const riskFactsStatement = byAskedVelocity('risk_facts', 0, ({ columns, unasked }) => `${unasked ? `WITH ${unasked} ` : ''}SELECT ${columns}`);

export async function riskRecord(database: Database, probe: RiskProbe): Promise<RiskRecord> {
  const params = riskParams(probe);
  const { text, name } = riskFactsStatement(params);
  const [row] = await database.query<RiskColumns>(text, params, name);
  return riskRecordOf(row!);
}

/** `{a,b}` → ['a', 'b'] (drivers that leave arrays as text). */
function parsePgArray(text: string): string[] {
  const inner = text.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',') : [];
}
