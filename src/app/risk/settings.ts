// Operators tune the risk rules per account (accounts.risk_settings holds the overrides) and keep
// blocklists. Overrides are checked here so that a typo cannot silently disable a rule.
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { blockValue, type BlockKind } from '../../domain/blocklist.ts';
import { isCurrency, parseAmount } from '../../domain/money.ts';
import { DEFAULT_RISK_SETTINGS, riskSettingsFor, type RiskSettings } from '../../domain/risk.ts';
import { accounts, payments, riskBlocklist } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { operatorAccount } from '../accounts/of-merchant.ts';

type Db = Pick<Deps, 'database'>;

const INTEGER_SETTINGS = new Set([
  'reviewScore',
  'rejectScore',
  'velocityWindowSeconds',
  'velocityCard.limit',
  'velocityCard.score',
  'velocityEmail.limit',
  'velocityEmail.score',
  'velocityIp.limit',
  'velocityIp.score',
  'countryMismatchScore',
  'blocklistScore',
]);

/** Applies `path=value` assignments to an account's overrides; amount limits take decimals. */
export function applyAssignments(overrides: Record<string, unknown>, assignments: readonly string[]): Record<string, unknown> {
  type Overrides = Record<string, Record<string, unknown> | number | undefined> & {
    amountLimits?: Record<string, Record<string, number>>;
  };
  const next = structuredClone(overrides) as Overrides;
  for (const assignment of assignments) {
    // Split at the first '=' only: split('=', 2) dropped whatever followed a second one, so
    // velocityCard.limit=5=50 set 5 without a word.
    const at = assignment.indexOf('=');
    if (at < 0) throw new AppError('invalid_field', `${assignment}: expected path=value`);
    const path = assignment.slice(0, at);
    const value = assignment.slice(at + 1);
    const amount = /^amountLimits\.([A-Z]{3})\.(review|reject)$/.exec(path);
    if (amount) {
      const [, currency, level] = amount as unknown as [string, string, string];
      if (!isCurrency(currency)) throw new AppError('invalid_currency', `${currency} is not a supported currency`);
      const parsed = parseAmount(value, currency);
      if (!('minor' in parsed)) throw new AppError('invalid_amount', `${path}: ${value} is not an amount in ${currency}`);
      next.amountLimits = { ...next.amountLimits, [currency]: { ...next.amountLimits?.[currency], [level]: parsed.minor } };
      continue;
    }
    if (!INTEGER_SETTINGS.has(path)) {
      throw new AppError('invalid_field', `${path} is not a risk setting (one of ${[...INTEGER_SETTINGS].join(', ')}, amountLimits.<CUR>.review|reject)`);
    }
    if (!/^[0-9]{1,9}$/.test(value)) throw new AppError('invalid_field', `${path} must be a whole number`);
    // A window of no seconds counts no payment: every velocity rule would be off without a word.
    if (path === 'velocityWindowSeconds' && Number(value) === 0) throw new AppError('invalid_field', 'velocityWindowSeconds must be at least 1');
    const [group, leaf] = path.split('.') as [string, string | undefined];
    if (leaf) next[group] = { ...(next[group] as Record<string, unknown> | undefined), [leaf]: Number(value) };
    else next[group] = Number(value);
  }
  const merged = riskSettingsFor(next);
  if (merged.reviewScore > merged.rejectScore) throw new AppError('invalid_field', 'reviewScore must not exceed rejectScore');
  return next;
}

const accountRow = (deps: Db, merchantId: string, accountId: string) => operatorAccount(deps.database.db, merchantId, accountId);

export async function effectiveRiskSettings(deps: Db, merchantId: string, accountId: string): Promise<{ overrides: Record<string, unknown>; effective: RiskSettings }> {
  const row = await accountRow(deps, merchantId, accountId);
  return { overrides: row.riskSettings, effective: riskSettingsFor(row.riskSettings) };
}

export async function setRiskSettings(deps: Db, merchantId: string, accountId: string, assignments: readonly string[] | 'reset'): Promise<RiskSettings> {
  const row = await accountRow(deps, merchantId, accountId);
  const overrides = assignments === 'reset' ? {} : applyAssignments(row.riskSettings, assignments);
  await deps.database.db.update(accounts).set({ riskSettings: overrides }).where(eq(accounts.id, row.id));
  return riskSettingsFor(overrides);
}

export type { BlockKind } from '../../domain/blocklist.ts';

export interface BlockEntry {
  readonly kind: BlockKind;
  /** For cards: a transaction of the account whose card is to be blocked (a PAN is never typed). */
  readonly value: string;
  readonly accountId?: string;
  readonly merchantId?: string;
  readonly note?: string;
}

/** The stored value: cards by fingerprint, the rest as blockValue keeps them (docs/risk.md). */
async function storedValue(deps: Db, entry: BlockEntry): Promise<string> {
  if (entry.kind !== 'card') {
    const checked = blockValue(entry.kind, entry.value);
    if ('problem' in checked) throw new AppError('invalid_field', checked.problem);
    return checked.value;
  }
  if (!entry.accountId) throw new AppError('invalid_field', 'blocking a card needs --merchant-id and --account-id with the transaction id');
  const [payment] = await deps.database.db
    .select({ fingerprint: payments.cardFingerprint })
    .from(payments)
    .where(and(eq(payments.accountId, entry.accountId), eq(payments.id, entry.value)));
  if (!payment?.fingerprint) throw new AppError('invalid_field', `no card payment ${entry.value} on account ${entry.accountId}`);
  return payment.fingerprint;
}

export async function addToBlocklist(deps: Db, entry: BlockEntry): Promise<void> {
  if (entry.accountId && entry.merchantId) await accountRow(deps, entry.merchantId, entry.accountId);
  const value = await storedValue(deps, entry);
  await deps.database.db
    .insert(riskBlocklist)
    .values({ accountId: entry.accountId ?? null, kind: entry.kind, value, note: entry.note ?? null })
    .onConflictDoNothing();
}

export async function removeFromBlocklist(deps: Db, entry: BlockEntry): Promise<boolean> {
  if (entry.accountId && entry.merchantId) await accountRow(deps, entry.merchantId, entry.accountId);
  const scope = entry.accountId ? eq(riskBlocklist.accountId, entry.accountId) : isNull(riskBlocklist.accountId);
  // An entry stored before values were checked and normalised (an IP address as typed, an email
  // or country no payment carries) is removed by its text as it was typed.
  const values = entry.kind === 'card' ? [await storedValue(deps, entry)] : [...new Set([await storedValue(deps, entry).catch(() => entry.value), entry.value])];
  const removed = await deps.database.db
    .delete(riskBlocklist)
    .where(and(scope, eq(riskBlocklist.kind, entry.kind), inArray(riskBlocklist.value, values)))
    .returning();
  return removed.length > 0;
}

export async function listBlocklist(deps: Db, accountId?: string) {
  return deps.database.db
    .select({
      scope: sql<string>`coalesce(${riskBlocklist.accountId}, 'all accounts')`,
      kind: riskBlocklist.kind,
      value: riskBlocklist.value,
      note: riskBlocklist.note,
      created_at: riskBlocklist.createdAt,
    })
    .from(riskBlocklist)
    .where(accountId ? or(isNull(riskBlocklist.accountId), eq(riskBlocklist.accountId, accountId)) : undefined)
    .orderBy(asc(riskBlocklist.kind), asc(riskBlocklist.value));
}

export { DEFAULT_RISK_SETTINGS };
