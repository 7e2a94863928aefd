// The hot path builds the rows it returns from what it wrote plus the database's stamps, rather
// than reading them back: they must equal what is stored, column for column.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authoriseCard } from '../../src/app/authorise/authorise-card.ts';
import { cardPaymentCommand, cardPaymentRequest } from '../../src/http/requests/card-payment.ts';
import { refund } from '../../src/app/refund/refund.ts';
import { byKeysStatement, IDS, paymentsByKeys, paymentsInWindow, REPORTED } from '../../src/db/repositories/payment-lookup.ts';
import { claimPayment, findPayment, hotPath } from '../../src/db/repositories/payments.ts';
import { lockRefundsAndPayments, refundsByIds } from '../../src/db/repositories/refunds.ts';
import type { AccountRow } from '../../src/db/schema.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { insertPayments } from '../support/lifecycle.ts';
import { startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

// Four kinds of payment: each path through the outcome (a journal, a stored card, a decline's
// event, a redirect).
const KINDS: [string, string, Record<string, unknown>][] = [
  ['captured', '4111111111111111', {}],
  ['stored card, held for review', '4000000000004954', { token_flag: '1', shopper_email: 'a@b.co', notify_url: 'https://merchant.example/n' }],
  ['declined', '4000000000000002', { note: 'n', cart_items: [{ basic_item_data: { name: 'Mug' } }] }],
  ['waiting for 3-D Secure', '4000000000003220', {}],
];

async function accountOf(shop: SignedClient) {
  return (await gw.gateway.server.directory.find(shop.ids.merchant_id, shop.ids.account_id))!.account;
}
const authorise = (shop: SignedClient, account: AccountRow, card: string, extra: Record<string, unknown>) => {
  const body = cardPaymentRequest.parse({ ...cardPayment(shop.ids, { card, ...extra }), encryption_data: 'x'.repeat(64) });
  return authoriseCard(gw.gateway.deps, account, cardPaymentCommand(body, gw.gateway.deps.clock.now()));
};

describe('rows the authorisation returns', () => {
  it.each(KINDS)('equal the stored row: %s', async (_name, card, extra) => {
    const shop = await gw.merchant();
    const account = await accountOf(shop);
    const returned = await authorise(shop, account, card, extra);
    expect(returned).toEqual(await findPayment(gw.database.db, account.id, returned.id));
  });
});

describe('rows the coalesced authorisations return', () => {
  it('equal the stored rows when the four kinds are claimed and recorded in one statement each', async () => {
    const shop = await gw.merchant();
    const account = await accountOf(shop);
    const before = { ...hotPath(gw.database).outcome.stats };
    const returned = await Promise.all(KINDS.map(([, card, extra]) => authorise(shop, account, card, extra)));
    const after = hotPath(gw.database).outcome.stats;
    expect(after.statements - before.statements).toBeLessThan(after.requests - before.requests);
    for (const payment of returned) expect(payment).toEqual(await findPayment(gw.database.db, account.id, payment.id));
  });
});

// The query's reads and the refund's claim, settlement and lock read each row as one JSON value
// (row_to_json), mapped by the schema's column mappers: they must give what the query builder
// reads, column for column (timestamps as dates to the millisecond, amounts as numbers, jsonb as
// objects).
describe('rows read as one JSON value', () => {
  it('equal the rows the query builder reads: payments by id and by order number, a refund claimed, settled and locked with its payment', async () => {
    const shop = await gw.merchant();
    const account = await accountOf(shop);
    const authorised = [];
    for (const [, card, extra] of KINDS) authorised.push(await authorise(shop, account, card, extra));
    const stored = await Promise.all(authorised.map((p) => findPayment(gw.database.db, account.id, p.id)));
    const byId = (rows: { id: string }[]) => new Map(rows.map((row) => [row.id, row]));
    // The query reads the columns its answer shows, the refund search the ids: each as the query builder reads it.
    for (const pick of [REPORTED, IDS]) {
      const byIds = byId(await paymentsByKeys(gw.database, account.id, 'id', authorised.map((p) => p.id), pick));
      const byOrderNos = byId(await paymentsByKeys(gw.database, account.id, 'order_no', authorised.map((p) => p.orderNo), pick));
      for (const row of stored) {
        const columns = Object.fromEntries(Object.entries(row!).filter(([key]) => key in byIds.get(row!.id)!));
        expect(Object.keys(columns).sort()).toEqual(Object.keys(byIds.get(row!.id)!).sort());
        expect(byIds.get(row!.id)).toEqual(columns);
        expect(byOrderNos.get(row!.id)).toEqual(columns);
      }
    }
    expect(Object.keys(byId(await paymentsByKeys(gw.database, account.id, 'id', [authorised[0]!.id], REPORTED)).get(authorised[0]!.id)!)).toHaveLength(14);
    // The query's time window reads the same columns through the query builder.
    const window = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000), offset: 0, limit: 100 };
    const paged = await paymentsInWindow(gw.database.db, account.id, window, REPORTED);
    expect(paged.total).toBe(stored.length);
    expect(byId(paged.rows)).toEqual(byId(await paymentsByKeys(gw.database, account.id, 'id', authorised.map((p) => p.id), REPORTED)));

    const captured = authorised[0]!;
    const order = { transactionId: captured.id, orderNo: captured.orderNo, currency: captured.currency, amount: captured.amount, refundAmount: 100, reason: 'a reason' };
    const refunded = await refund(gw.gateway.deps, account, order);
    const locked = await gw.database.transaction((query) => lockRefundsAndPayments(query, [refunded.id]));
    const [read] = await refundsByIds(gw.database.db, account.id, [refunded.id]);
    expect(refunded).toEqual(read!.refund); // as claimed, then settled: both statements' rows are read as JSON
    expect(locked.get(refunded.id)).toEqual({ refund: read!.refund, payment: read!.payment, subscription: null });
  });
});

describe('reads by key', () => {
  // The scans of `payments` in a plan, with the index each reads through.
  const scans = (node: Record<string, unknown>): string[] => [
    ...(node['Relation Name'] === 'payments' ? [`${String(node['Node Type'])} ${String(node['Index Name'] ?? '')}`.trim()] : []),
    ...((node.Plans as Record<string, unknown>[] | undefined) ?? []).flatMap(scans),
  ];

  it('look each key up through its unique index, also before anything has analysed the table', async () => {
    const shop = await gw.merchant();
    const account = await accountOf(shop);
    // 20 000 payments of the account in one statement. Nothing analyses the table meanwhile (the
    // embedded engine has no autovacuum; this machine's PostgreSQL runs none, and elsewhere its
    // rounds are a minute apart): the planner has no statistics of the account's payments.
    await insertPayments(gw, shop.ids, 20_000, { prefix: 'BYKEY' });
    const numbers = Array.from({ length: 100 }, (_, i) => i + 1);
    const wanted = { order_no: numbers.map((n) => `BYKEY-${n}`), id: numbers.map((n) => `TBYKEY${n}`) };
    for (const column of ['order_no', 'id'] as const) {
      const [explained] = await gw.database.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(`EXPLAIN (FORMAT JSON) ${byKeysStatement(column, REPORTED)}`, [account.id, wanted[column]]);
      const unique = column === 'id' ? 'payments_pkey' : 'payments_account_id_order_no_key';
      expect(scans(explained!['QUERY PLAN'][0].Plan), column).toEqual([`Index Scan ${unique}`]);
      expect(await paymentsByKeys(gw.database, account.id, column, wanted[column], IDS)).toHaveLength(100);
    }
  });
});

// A prepared statement whose text folds away the velocity counts a payment does not ask for was
// planned again at every execution (a plan for the values always looked cheaper than the generic
// one): a third of PostgreSQL's CPU for a card payment alone. One text per set of counts asked is
// planned once per connection and its plan reused.
describe.runIf(TEST_DB === 'postgres')('the claim statement', () => {
  it('reuses its generic plan for each set of velocity counts asked', async () => {
    const shop = await gw.merchant();
    // One connection: sequential statements from a pool reuse the connection released last.
    const database = await gw.anotherConnection();
    try {
      const now = new Date();
      const velocities = [{ cardCap: 20, emailCap: 50, ipCap: 100 }, undefined];
      for (const [v, velocity] of velocities.entries()) {
        // Five plans for the values first, then the generic one: 7 of each set.
        for (let i = 0; i < 14; i++) {
          const id = `TPLAN${v}X${i}`;
          const claim = { id, accountId: shop.ids.account_id, merchantId: shop.ids.merchant_id, orderNo: `PLAN-${v}-${i}`, kind: 'card' as const, paymentMethod: 'card',
            amount: 1000, currency: 'USD', requestFingerprint: 'fp', request: {}, connector: 'simulator', now, wallNow: now, unknownAfterMs: 60_000,
            ...(i % 2 ? { shopperEmail: 'a@b.co' } : {}) };
          const probe = { accountId: shop.ids.account_id, paymentId: id, since: new Date(now.getTime() - 3_600_000), card: 'fp', bin: '42424242', ...(velocity ? { velocity } : {}), ...(i % 2 ? { email: 'a@b.co' } : {}) };
          expect(await claimPayment(database, claim as never, probe)).not.toBeNull();
        }
      }
      const plans = await database.query<{ name: string; generic_plans: string }>(`SELECT name, generic_plans FROM pg_prepared_statements WHERE name LIKE 'claim_payment%' ORDER BY name`);
      expect(plans.map((p) => [p.name, Number(p.generic_plans) > 0])).toEqual([
        ['claim_payment', true],
        ['claim_payment+card', true],
        ['claim_payment+card+email', true],
      ]);
    } finally {
      await database.close();
    }
  });
});
