// Optimise payment methods: for an order context (currency, amount, billing country, device),
// the methods the account can offer, ranked by their approval rate on the account's own similar
// payments of the last WINDOW_DAYS. "Similar" starts strict (same currency, country, amount band
// and device class) and widens per method — device first, then amount band, then country — until
// MIN_SAMPLE decided payments back the rate; the answer says which basis each rate rests on.
//
// Decided = approved by the processor or issuer (authorised, captured, refunded, held for review,
// or voided later) or refused by them (2xxx). Not counted: payments still waiting, risk's own
// refusals (3xxx: our rule, not the method's) and abandonment (2009: the shopper's choice).
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client.ts';
import type { AccountRow } from '../../db/schema.ts';
import { formatAmount, type Money } from '../../domain/money.ts';
import type { Deps } from '../context.ts';
import { methodsOf } from '../apm/methods.ts';

export const WINDOW_DAYS = 90;
export const MIN_SAMPLE = 10;

/** What to rank methods for, built by the adapter (src/http/requests/optimise.ts parses the merchant's request). */
export interface OptimiseQuery {
  readonly amount: Money;
  readonly country?: string;
  readonly device?: DeviceClass;
}

export type DeviceClass = 'mobile' | 'tablet' | 'desktop';
type Dimension = 'country' | 'amount_band' | 'device';

export interface RankedMethod {
  readonly rank: number;
  readonly paymentMethod: string;
  readonly type: string;
  readonly label: string;
  readonly attempts: number;
  readonly approved: number;
  /** approved / attempts; undefined without history. */
  readonly approvalRate: number | undefined;
  /** The similarity the figures come from, e.g. "currency+country+amount_band". */
  readonly basis: string;
}

export interface Optimised {
  readonly currency: string;
  readonly amountMinor: number;
  readonly country?: string;
  readonly device?: DeviceClass;
  /** Decade of the amount, as decimal bounds in the currency: ["10.00", "99.99"]. */
  readonly amountBand: readonly [string, string];
  readonly methods: readonly RankedMethod[];
}

interface Bucket {
  readonly method: string;
  readonly country: string | null;
  readonly band: number;
  readonly device: DeviceClass | null;
  readonly approved: number;
  readonly decided: number;
}

const APPROVED = ['pending_review', 'authorised', 'captured', 'partially_refunded', 'refunded', 'cancelled'];

export async function optimisePaymentMethods(deps: Deps, account: AccountRow, query: OptimiseQuery): Promise<Optimised> {
  const { currency, minor: amountMinor } = query.amount;
  const { country, device } = query;
  const band = Math.floor(Math.log10(amountMinor));

  const offered = [
    { name: 'card', type: 'card', label: 'Card' },
    ...methodsOf(deps.connectors, account).filter(
      (method) => (!method.currencies || method.currencies.includes(currency)) && (!method.countries || (country !== undefined && method.countries.includes(country))),
    ),
  ];
  const buckets = await history(deps, account.id, currency);
  // Dimensions the order states, dropped one by one as a method's history is too thin.
  const dimensions: Dimension[] = [...(country ? (['country'] as const) : []), 'amount_band', ...(device ? (['device'] as const) : [])];
  const levels = dimensions.map((_, i) => dimensions.slice(0, dimensions.length - i)).concat([[]]);
  const matches = (bucket: Bucket, level: readonly Dimension[]) =>
    level.every((dimension) =>
      dimension === 'country' ? bucket.country === country : dimension === 'amount_band' ? bucket.band === band : bucket.device === device,
    );

  const figures = offered.map((method) => {
    const mine = buckets.filter((bucket) => bucket.method === method.name);
    let chosen = { level: levels[levels.length - 1]!, approved: 0, decided: 0 };
    for (const level of levels) {
      const approved = mine.filter((bucket) => matches(bucket, level)).reduce((sum, bucket) => sum + bucket.approved, 0);
      const decided = mine.filter((bucket) => matches(bucket, level)).reduce((sum, bucket) => sum + bucket.decided, 0);
      chosen = { level, approved, decided };
      if (decided >= MIN_SAMPLE) break;
    }
    return {
      paymentMethod: method.name,
      type: method.type,
      label: method.label,
      attempts: chosen.decided,
      approved: chosen.approved,
      approvalRate: chosen.decided > 0 ? chosen.approved / chosen.decided : undefined,
      basis: ['currency', ...chosen.level].join('+'),
    };
  });
  // Highest rate first; without history last; ties: the larger sample, then the name.
  figures.sort(
    (a, b) =>
      (b.approvalRate ?? -1) - (a.approvalRate ?? -1) || b.attempts - a.attempts || (a.paymentMethod < b.paymentMethod ? -1 : a.paymentMethod > b.paymentMethod ? 1 : 0),
  );
  return {
    currency,
    amountMinor,
    ...(country ? { country } : {}),
    ...(device ? { device } : {}),
    amountBand: [formatAmount(10 ** band, currency), formatAmount(10 ** (band + 1) - 1, currency)],
    methods: figures.map((figure, i) => ({ ...figure, rank: i + 1 })),
  };
}

/** The account's decided payments in the currency, counted by method, country, amount decade and device. */
async function history(deps: Deps, accountId: string, currency: string): Promise<Bucket[]> {
  const since = new Date(deps.clock.now().getTime() - WINDOW_DAYS * 86_400_000);
  const rows = await rowsOf<{ method: string; country: string | null; band: number; device: string | null; approved: number; decided: number }>(
    deps.database.db,
    sql`SELECT payment_method AS method,
               request->>'billing_country' AS country,
               floor(log(amount::numeric))::int AS band,
               request->>'device_type' AS device,
               count(*) FILTER (WHERE status IN (${sql.join(APPROVED.map((status) => sql`${status}`), sql`, `)}))::int AS approved,
               count(*)::int AS decided
          FROM payments
         WHERE account_id = ${accountId} AND currency = ${currency} AND created_at >= ${since}
           AND (status IN (${sql.join(APPROVED.map((status) => sql`${status}`), sql`, `)})
                OR (status = 'failed' AND result_code LIKE '2%' AND result_code <> '2009'))
         GROUP BY 1, 2, 3, 4`,
  );
  return rows.map((row) => ({
    method: row.method,
    country: row.country,
    band: Number(row.band),
    device: row.device === null ? null : deviceClass(row.device),
    approved: Number(row.approved),
    decided: Number(row.decided),
  }));
}

/** device_type as merchants send it ("iPhone", "Android phone", "desktop") in three classes. */
export function deviceClass(text: string): DeviceClass {
  const lower = text.toLowerCase();
  if (/tablet|ipad/.test(lower)) return 'tablet';
  if (/mobile|phone|android|ios|smartphone/.test(lower)) return 'mobile';
  return 'desktop';
}
