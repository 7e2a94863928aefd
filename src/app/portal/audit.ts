// The audit log of the portal: every staff action and sign-in, with who, what, when, from where
// and the outcome. Rows form one hash chain in seq order: each row's hash is the SHA-256 of its
// content and the hash before it, so a row changed, removed or inserted afterwards breaks the
// chain from there on (`acquiro audit verify`). The database refuses changes too (0015_portal.sql).
import { createHash } from 'node:crypto';
import type { Database, Tx } from '../../db/client.ts';
import { auditRowsAfter, insertAuditRow, lockAuditChain } from '../../db/repositories/audit-log.ts';
import type { AuditRow } from '../../db/schema.ts';

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  readonly merchantId: string | null;
  readonly userId: string | null;
  /** Who acted: a member's e-mail, `cli` for the command line, or the address typed at a failed sign-in. */
  readonly email: string;
  readonly action: string;
  /** What the action was on (a member, a transaction, a key). */
  readonly target?: string | null;
  readonly outcome: AuditRow['outcome'];
  /** Where from: the client's address (`cli` for the command line). */
  readonly ip: string;
  readonly detail?: Readonly<Record<string, string>>;
}

/** The hash of a row: its content (keys of `detail` sorted) and the previous hash. */
export function auditHash(row: Omit<AuditRow, 'hash'>): string {
  const detail = Object.fromEntries(Object.entries(row.detail).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const content = [row.seq, row.at.toISOString(), row.merchantId, row.userId, row.email, row.action, row.target, row.outcome, row.ip, detail, row.prevHash];
  return createHash('sha256').update(JSON.stringify(content)).digest('hex');
}

async function append(tx: Tx, entry: AuditEntry, at: Date): Promise<AuditRow> {
  const last = await lockAuditChain(tx);
  const unhashed = {
    seq: (last?.seq ?? 0) + 1,
    at,
    merchantId: entry.merchantId,
    userId: entry.userId,
    email: entry.email.slice(0, 320),
    action: entry.action,
    target: entry.target ?? null,
    outcome: entry.outcome,
    ip: entry.ip,
    detail: { ...entry.detail },
    prevHash: last?.hash ?? GENESIS_HASH,
  };
  const row = { ...unhashed, hash: auditHash(unhashed) };
  await insertAuditRow(tx, row);
  return row;
}

/** Appends a row inside the caller's transaction: it commits with the change it records. `at`: the wall clock's time. */
export function appendAudit(tx: Tx, entry: AuditEntry, at: Date): Promise<AuditRow> {
  return append(tx, entry, at);
}

/** Appends a row in a transaction of its own (a refusal, a sign-in that changed nothing else). */
export function recordAudit(database: Pick<Database, 'db'>, entry: AuditEntry, at: Date): Promise<AuditRow> {
  return database.db.transaction((tx) => append(tx, entry, at));
}

export type Verification =
  | { readonly ok: true; readonly rows: number; readonly last: { readonly seq: number; readonly hash: string } | undefined }
  | { readonly ok: false; readonly rows: number; readonly seq: number; readonly reason: string };

/** A head of the chain kept elsewhere (`seq` and `hash` of what was then the last row). */
export interface KeptHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Walks the chain in order; the first row whose seq, link or hash is wrong is named. A chain cut
 * short at its end is still whole: only a head kept elsewhere (`expected`) shows rows are gone.
 */
export async function verifyAudit(database: Pick<Database, 'db'>, expected?: KeptHead): Promise<Verification> {
  const walked = await walkChain(database);
  if (!walked.ok || !expected) return walked;
  if (walked.rows < expected.seq) return { ok: false, rows: walked.rows, seq: expected.seq, reason: `row ${expected.seq} is missing: the log ends at row ${walked.rows}` };
  const [kept] = await auditRowsAfter(database.db, expected.seq - 1, 1);
  if (kept!.hash !== expected.hash.toLowerCase()) return { ok: false, rows: expected.seq - 1, seq: expected.seq, reason: 'its hash is not the one kept' };
  return walked;
}

async function walkChain(database: Pick<Database, 'db'>): Promise<Verification> {
  let previous: AuditRow | undefined;
  let rows = 0;
  for (;;) {
    const batch = await auditRowsAfter(database.db, previous?.seq ?? 0, 1000);
    for (const row of batch) {
      const expectedSeq = (previous?.seq ?? 0) + 1;
      if (row.seq !== expectedSeq) return { ok: false, rows, seq: row.seq, reason: `row ${expectedSeq} is missing` };
      if (row.prevHash !== (previous?.hash ?? GENESIS_HASH)) return { ok: false, rows, seq: row.seq, reason: 'it does not quote the hash of the row before it' };
      const { hash, ...content } = row;
      if (auditHash(content) !== hash) return { ok: false, rows, seq: row.seq, reason: 'its content does not match its hash' };
      previous = row;
      rows++;
    }
    if (batch.length < 1000) return { ok: true, rows, last: previous && { seq: previous.seq, hash: previous.hash } };
  }
}
