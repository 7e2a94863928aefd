// The exchange rates payouts convert at: payment-currency units per source-currency unit, kept as
// decimal text so that they are read exactly (src/domain/payouts/amounts.ts parses them).
import { asc, sql } from 'drizzle-orm';
import type { Executor, RawQuery } from '../client.ts';
import { fxRates } from '../schema.ts';

export type FxRateRow = typeof fxRates.$inferSelect;

/**
 * The configured rate from `sourceCurrency` to `paymentCurrency` (`inverse: false`), or else the
 * opposite pair's (`inverse: true`, for the caller to invert); null when neither is configured.
 */
export async function rateText(query: RawQuery, sourceCurrency: string, paymentCurrency: string): Promise<{ text: string; inverse: boolean } | null> {
  const [row] = await query<{ rate: string; inverse: boolean }>(
    `SELECT rate, source_currency <> $1 AS inverse FROM fx_rates
      WHERE (source_currency = $1 AND payment_currency = $2) OR (source_currency = $2 AND payment_currency = $1)
      ORDER BY inverse LIMIT 1`,
    [sourceCurrency, paymentCurrency],
    'fx_rate_either_way',
  );
  return row ? { text: row.rate, inverse: row.inverse } : null;
}

export async function setRate(db: Executor, row: FxRateRow): Promise<void> {
  await db
    .insert(fxRates)
    .values(row)
    .onConflictDoUpdate({ target: [fxRates.sourceCurrency, fxRates.paymentCurrency], set: { rate: sql`excluded.rate`, updatedAt: sql`excluded.updated_at` } });
}

export async function listRates(db: Executor): Promise<FxRateRow[]> {
  return db.select().from(fxRates).orderBy(asc(fxRates.sourceCurrency), asc(fxRates.paymentCurrency));
}
