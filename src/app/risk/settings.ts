// Operators tune the risk rules per account (accounts.risk_settings holds the overrides) and keep
// blocklists. Overrides are checked here so that a typo cannot silently disable a rule.
import { and, asc, eq, inArray, isNull, ne, or, sql } from 'drizzle-orm';
import { AppError } from '../../domain/errors.ts';
import { blockValue, type BlockKind } from '../../domain/blocklist.ts';
import { PLATFORM_MERCHANT_ID } from '../../domain/ledger.ts';
import { formatAmount, isCurrency, parseAmount } from '../../domain/money.ts';
import { actionFor, DEFAULT_RISK_SETTINGS, MAX_RISK_SCORE, riskSettingsFor, type RiskAction, type RiskSettings } from '../../domain/risk.ts';
import { announceAccountChange } from '../../db/repositories/accounts.ts';
import { accounts, payments, riskBlocklist, type AccountRow } from '../../db/schema.ts';
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

/** A setting that would not work as an operator means it, and the paths of `risk set` it names. */
export interface SettingProblem {
  readonly paths: readonly string[];
  readonly message: string;
}

/**
 * What in the settings would not work as meant: `risk set` refuses a change that leaves one of
 * these in a setting it names, and `risk show` warns of those stored before it refused them.
 */
export function settingProblems(settings: RiskSettings): SettingProblem[] {
  const problems: SettingProblem[] = [];
  const problem = (paths: readonly string[], message: string) => problems.push({ paths, message });
  // A window of no seconds counts no payment: every velocity rule would be off without a word.
  if (settings.velocityWindowSeconds < 1) problem(['velocityWindowSeconds'], 'velocityWindowSeconds must be at least 1');
  // "Used limit times or more in the window": a limit of 0 hits every payment, the first included.
  for (const rule of ['velocityCard', 'velocityEmail', 'velocityIp'] as const) {
    if (settings[rule].limit < 1) {
      problem([`${rule}.limit`], `${rule}.limit must be at least 1: a limit of 0 hits every payment, whatever came before it (${rule}.score=0 turns the rule off)`);
    }
  }
  // A score is capped at MAX_RISK_SCORE: a threshold above it is never reached, and its action
  // (rejection, review) was off without a word, a blocklisted card accepted.
  for (const threshold of ['reviewScore', 'rejectScore'] as const) {
    if (settings[threshold] > MAX_RISK_SCORE) {
      problem([threshold], `${threshold} must be from 0 to ${MAX_RISK_SCORE} (a risk score is at most ${MAX_RISK_SCORE}, so a higher one is never reached)`);
    }
  }
  if (settings.reviewScore > settings.rejectScore) problem(['reviewScore', 'rejectScore'], 'reviewScore must not exceed rejectScore');
  // Above the reject limit a payment is refused: a review limit at or above it never held one.
  for (const [currency, { review, reject }] of Object.entries(settings.amountLimits)) {
    if (review !== undefined && reject !== undefined && review >= reject) {
      const amount = (minor: number) => (isCurrency(currency) ? formatAmount(minor, currency) : String(minor));
      problem(
        [`amountLimits.${currency}.review`, `amountLimits.${currency}.reject`],
        `amountLimits.${currency}.review (${amount(review)}) must be below amountLimits.${currency}.reject (${amount(reject)}): a payment above the reject limit is refused, so no payment would be held for review`,
      );
    }
  }
  return problems;
}

/** One `path=value` of `risk set`, parsed: where it goes in the overrides and the number stored. */
export interface Assignment {
  readonly path: string;
  readonly keys: readonly string[];
  readonly value: number;
}

/**
 * Parses `path=value` assignments (amount limits take decimals), each checked on its own: its
 * syntax, and its range (a problem of settingProblems naming it alone, with every other setting
 * at its default). What it refuses needs no stored settings, so the CLI refuses it as an argument
 * (exit 2) before it opens the database.
 */
export function parseAssignments(assignments: readonly string[]): Assignment[] {
  return assignments.map((assignment) => {
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
      // Refused as "not an amount", 0 read as a typo in the number; like a velocity limit of 0,
      // it would hit every payment.
      if ('problem' in parsed && parsed.problem === 'zero') {
        const effect = level === 'review' ? 'held for review' : 'refused';
        throw new AppError(
          'invalid_amount',
          `${path} must be above 0: every payment is above a limit of 0, so every ${currency} payment would be ${effect} (to have no limit, remove it: acquiro risk unset ${path})`,
        );
      }
      if (!('minor' in parsed)) throw new AppError('invalid_amount', `${path}: ${value} is not an amount in ${currency}`);
      return { path, keys: ['amountLimits', currency, level], value: parsed.minor };
    }
    if (!INTEGER_SETTINGS.has(path)) {
      throw new AppError('invalid_field', `${path} is not a risk setting (one of ${[...INTEGER_SETTINGS].join(', ')}, amountLimits.<CUR>.review|reject)`);
    }
    if (!/^[0-9]{1,9}$/.test(value)) throw new AppError('invalid_field', `${path} must be a whole number`);
    const parsed = { path, keys: path.split('.'), value: Number(value) };
    const alone = settingProblems(riskSettingsFor(assign({}, [parsed]))).find((problem) => problem.paths.length === 1 && problem.paths[0] === path);
    if (alone) throw new AppError('invalid_field', alone.message);
    return parsed;
  });
}

/** The overrides with the assignments written in (a copy). */
function assign(overrides: Record<string, unknown>, assignments: readonly Assignment[]): Record<string, unknown> {
  const next = structuredClone(overrides);
  for (const { keys, value } of assignments) {
    let group = next;
    for (const key of keys.slice(0, -1)) {
      const child = group[key];
      group = group[key] = typeof child === 'object' && child !== null ? { ...(child as Record<string, unknown>) } : {};
    }
    group[keys.at(-1)!] = value;
  }
  return next;
}

/**
 * Applies `path=value` assignments (parseAssignments) to an account's overrides. A problem
 * (settingProblems) the result has in a setting assigned, with the other settings as stored, is
 * refused; one stored before, elsewhere, is not.
 */
export function applyAssignments(overrides: Record<string, unknown>, assignments: readonly string[]): Record<string, unknown> {
  const parsed = parseAssignments(assignments);
  const assigned = new Set(parsed.map((assignment) => assignment.path));
  const next = assign(overrides, parsed);
  const refused = settingProblems(riskSettingsFor(next)).find((problem) => problem.paths.some((path) => assigned.has(path)));
  if (refused) throw new AppError('invalid_field', refused.message);
  return next;
}

/** What `risk unset` removes: a setting's path, or `amountLimits.<CUR>` for both of a currency's limits. */
const UNSET_PATH = /^amountLimits\.([A-Z]{3})(?:\.(review|reject))?$/;

/** Refuses a path `risk unset` cannot name: needs no stored settings (the CLI refuses it as an argument, exit 2). */
export function checkUnsetPaths(paths: readonly string[]): void {
  for (const path of paths) {
    if (!UNSET_PATH.test(path) && !INTEGER_SETTINGS.has(path)) {
      throw new AppError('invalid_field', `${path} is not a risk setting (one of ${[...INTEGER_SETTINGS].join(', ')}, amountLimits.<CUR>.review|reject, amountLimits.<CUR>)`);
    }
  }
}

/**
 * Removes overrides, so that each path named takes its default again (the others are kept); a
 * group (`velocityCard`, a currency's limits, `amountLimits`) left empty goes too. A path that is
 * a setting but has no override is answered in `absent`. As with `risk set`, a problem
 * (settingProblems) the removal leaves in a setting it names is refused.
 */
export function removeOverrides(overrides: Record<string, unknown>, paths: readonly string[]): { overrides: Record<string, unknown>; removed: string[]; absent: string[] } {
  const next = structuredClone(overrides) as Record<string, unknown>;
  const removed: string[] = [];
  const absent: string[] = [];
  const named = new Set<string>();
  checkUnsetPaths(paths);
  for (const path of paths) {
    const amount = UNSET_PATH.exec(path);
    const keys = path.split('.');
    if (amount && !amount[2]) named.add(`${path}.review`).add(`${path}.reject`);
    else named.add(path);
    // Walk to the parent; remove the leaf; drop the groups it leaves empty, innermost first.
    const parents: Record<string, unknown>[] = [next];
    for (const key of keys.slice(0, -1)) {
      const child = parents.at(-1)![key];
      if (typeof child !== 'object' || child === null) break;
      parents.push(child as Record<string, unknown>);
    }
    const leaf = keys.at(-1)!;
    if (parents.length !== keys.length || !(leaf in parents.at(-1)!)) {
      absent.push(path);
      continue;
    }
    delete parents.at(-1)![leaf];
    for (let depth = parents.length - 1; depth > 0 && Object.keys(parents[depth]!).length === 0; depth -= 1) delete parents[depth - 1]![keys[depth - 1]!];
    removed.push(path);
  }
  const refused = settingProblems(riskSettingsFor(next)).find((problem) => problem.paths.some((path) => named.has(path)));
  if (refused) throw new AppError('invalid_field', refused.message);
  return { overrides: next, removed, absent };
}

const accountRow = (deps: Db, merchantId: string, accountId: string) => operatorAccount(deps.database.db, merchantId, accountId);

/** The overrides, the settings in effect, and the problems of these (settingProblems' messages). */
export async function effectiveRiskSettings(
  deps: Db,
  merchantId: string,
  accountId: string,
): Promise<{ overrides: Record<string, unknown>; effective: RiskSettings; problems: string[] }> {
  const row = await accountRow(deps, merchantId, accountId);
  const effective = riskSettingsFor(row.riskSettings);
  return { overrides: row.riskSettings, effective, problems: settingProblems(effective).map((problem) => problem.message) };
}

/**
 * Applies the assignments to the overrides as they are when the account's row is locked: read
 * unlocked, two commands at once each wrote back what it read plus its own change, and the one
 * written last dropped the other's.
 */
export async function setRiskSettings(deps: Db, merchantId: string, accountId: string, assignments: readonly string[] | 'reset'): Promise<RiskSettings> {
  const { effective } = await changeOverrides(deps, merchantId, accountId, (stored) => ({ overrides: assignments === 'reset' ? {} : applyAssignments(stored, assignments) }));
  return effective;
}

/** `risk unset`: the paths' overrides removed (removeOverrides), under the same lock as `risk set`. */
export async function unsetRiskSettings(deps: Db, merchantId: string, accountId: string, paths: readonly string[]) {
  return changeOverrides(deps, merchantId, accountId, (stored) => removeOverrides(stored, paths));
}

async function changeOverrides<T extends { overrides: Record<string, unknown> }>(
  deps: Db,
  merchantId: string,
  accountId: string,
  change: (stored: Record<string, unknown>) => T,
): Promise<T & { effective: RiskSettings }> {
  const row = await accountRow(deps, merchantId, accountId);
  return deps.database.db.transaction(async (tx) => {
    const [locked] = await tx.select({ riskSettings: accounts.riskSettings }).from(accounts).where(eq(accounts.id, row.id)).for('update');
    const changed = change(locked!.riskSettings);
    await tx.update(accounts).set({ riskSettings: changed.overrides }).where(eq(accounts.id, row.id));
    // Every process's account cache drops the account at once, as for any other account change:
    // it waited for the cache to expire, a limit tightened during an attack included.
    await announceAccountChange(tx);
    return { ...changed, effective: riskSettingsFor(changed.overrides) };
  });
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

/** What a payment whose one hit is a blocklist entry gets (its score is blocklistScore): the entry refuses it only at rejectScore. */
const entryAlone = (settings: RiskSettings): RiskAction => actionFor(Math.min(MAX_RISK_SCORE, settings.blocklistScore), settings);

/**
 * Why the entry, on its own, would not refuse a payment of the account named (or, for a
 * gateway-wide entry, of which accounts): it accepts it (blocklistScore below reviewScore), or
 * only holds it for review (below rejectScore). `blocklist add` answered "blocked" all the same.
 */
async function blocklistProblems(deps: Db, account: AccountRow | undefined): Promise<string[]> {
  if (account) {
    const settings = riskSettingsFor(account.riskSettings);
    const refuses = `acquiro risk set --set blocklistScore=${settings.rejectScore} refuses it`;
    switch (entryAlone(settings)) {
      case 'reject':
        return [];
      case 'review':
        return [`blocklistScore (${settings.blocklistScore}) is below rejectScore (${settings.rejectScore}): a payment with this entry alone is held for review, not refused (${refuses})`];
      case 'accept':
        return [
          `blocklistScore (${settings.blocklistScore}) is below reviewScore (${settings.reviewScore}): a payment with this entry alone is accepted; it is held or refused only if other rules add enough (${refuses})`,
        ];
    }
  }
  // Only accounts overriding one of the three can differ from the defaults (100 against 50 and 80).
  const overriding = await deps.database.db
    .select({ id: accounts.id, merchantId: accounts.merchantId, riskSettings: accounts.riskSettings })
    .from(accounts)
    .where(
      and(
        ne(accounts.merchantId, PLATFORM_MERCHANT_ID),
        sql`(${accounts.riskSettings} ? 'blocklistScore' OR ${accounts.riskSettings} ? 'reviewScore' OR ${accounts.riskSettings} ? 'rejectScore')`,
      ),
    )
    .orderBy(asc(accounts.merchantId), asc(accounts.id));
  const where = (action: RiskAction) => overriding.filter((row) => entryAlone(riskSettingsFor(row.riskSettings)) === action).map((row) => `${row.merchantId}/${row.id}`);
  const accepted = where('accept');
  const held = where('review');
  return [
    ...(accepted.length ? [`blocklistScore is below reviewScore on ${accountsNamed(accepted)}: a payment there with this entry alone is accepted; it is held or refused only if other rules add enough`] : []),
    ...(held.length ? [`blocklistScore is below rejectScore on ${accountsNamed(held)}: a payment there with this entry alone is held for review, not refused`] : []),
  ];
}

/** `3 accounts (M1/A1, M1/A2, M2/A3)`, the first ten named. */
function accountsNamed(named: readonly string[]): string {
  const shown = named.length > 10 ? `${named.slice(0, 10).join(', ')} and ${named.length - 10} more` : named.join(', ');
  return `${named.length} account${named.length === 1 ? '' : 's'} (${shown})`;
}

export interface BlocklistAdded {
  /** false: the entry was already there (the same card through another of its transactions too). */
  readonly added: boolean;
  /** The entry's note now. */
  readonly note: string | null;
  /** The note a new --note replaced on an entry already there. */
  readonly previousNote?: string | null;
  /** Why the entry alone refuses no payment (blocklistScore below rejectScore: held for review, or below reviewScore: accepted), if so. */
  readonly problems: string[];
}

/**
 * Adds the entry, or finds it already there: then a new note replaces the old one (the latest
 * reason is what an operator means to record; the old one is answered), and no note keeps it.
 */
export async function addToBlocklist(deps: Db, entry: BlockEntry): Promise<BlocklistAdded> {
  const account = entry.accountId && entry.merchantId ? await accountRow(deps, entry.merchantId, entry.accountId) : undefined;
  const value = await storedValue(deps, entry);
  const note = entry.note ?? null;
  const stored = and(entry.accountId ? eq(riskBlocklist.accountId, entry.accountId) : isNull(riskBlocklist.accountId), eq(riskBlocklist.kind, entry.kind), eq(riskBlocklist.value, value));
  // Twice at most: an entry found at the insert and removed before it was read is added again.
  for (let attempt = 0; ; attempt += 1) {
    const result = await deps.database.db.transaction(async (tx): Promise<Omit<BlocklistAdded, 'problems'> | undefined> => {
      const [inserted] = await tx.insert(riskBlocklist).values({ accountId: entry.accountId ?? null, kind: entry.kind, value, note }).onConflictDoNothing().returning({ note: riskBlocklist.note });
      if (inserted) return { added: true, note: inserted.note };
      const [existing] = await tx.select({ id: riskBlocklist.id, note: riskBlocklist.note }).from(riskBlocklist).where(stored).for('update');
      if (!existing) return undefined;
      if (note === null || note === existing.note) return { added: false, note: existing.note };
      await tx.update(riskBlocklist).set({ note }).where(eq(riskBlocklist.id, existing.id));
      return { added: false, note, previousNote: existing.note };
    });
    if (result) return { ...result, problems: await blocklistProblems(deps, account) };
    if (attempt >= 1) throw new AppError('operation_in_progress', 'the entry changed while it was added: run the command again');
  }
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
