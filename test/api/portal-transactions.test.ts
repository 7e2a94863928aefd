// The portal's transactions search over HTTP: each filter, sort and pages, the CSV export with
// spreadsheet formulas neutralised, XSS probes in shopper-controlled fields shown as text, and
// another merchant's transactions never found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import { freshCard } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { pay, type Txn } from '../support/lifecycle.ts';
import { createMember, signIn, type PortalClient } from '../support/portal.ts';

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
let staff: PortalClient;
let usd: Txn;
let eur: Txn;
let declined: Txn;
let probe: Txn;
let foreign: Txn;
const PROBE = '<svg/onload=alert(1)>';

beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
  other = await gw.merchant();
  usd = await pay(shop, { amount: '12.34', shopper_email: 'Ann@Shop.example' });
  eur = await pay(shop, { currency: 'EUR', amount: '99.00', card: '5555555555554444' });
  declined = await pay(shop, { card: '4000000000000002', amount: '5.00' });
  probe = await pay(shop, { order_no: `=HYPERLINK("x")${PROBE}${Date.now()}`, card: freshCard(), shopper_email: `${PROBE}@probe.example` });
  foreign = await pay(other, { amount: '12.34', shopper_email: 'ann@shop.example' });
  staff = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'viewer'));
}, 120_000);
afterAll(() => gw?.close());

const ids = (body: string) => [...body.matchAll(/<td><a href="\/portal\/transactions\/([^"?/]+)"/g)].map((m) => decodeURIComponent(m[1]!));
async function search(query: string): Promise<string[]> {
  const answer = await staff.get(`/portal/transactions?${query}`);
  expect(answer.status, answer.body).toBe(200);
  return ids(answer.body);
}

describe('portal transactions search', () => {
  it('lists only the member merchant’s transactions, newest first', async () => {
    const all = await search('');
    expect(all).toEqual([probe, declined, eur, usd].map((t) => t.transaction_id));
    expect(all).not.toContain(foreign.transaction_id);
  });

  it.each<[string, () => string, () => Txn[]]>([
    ['transaction_id', () => `transaction_id=${usd.transaction_id}`, () => [usd]],
    ['order_no', () => `order_no=${encodeURIComponent(eur.order_no)}`, () => [eur]],
    ['status', () => 'status=failed', () => [declined]],
    ['currency', () => 'currency=eur', () => [eur]],
    ['amount range', () => 'currency=USD&min_amount=10.01&max_amount=20', () => [usd]],
    ['card last four', () => 'last4=4444', () => [eur]],
    ['shopper e-mail, any case', () => 'email=ANN@shop.example', () => [usd]],
    ['payment method', () => 'method=card&status=captured&currency=EUR', () => [eur]],
    ['date range (today)', () => `from=${new Date().toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}&currency=EUR`, () => [eur]],
    ['date range (the past)', () => 'from=2020-01-01&to=2020-01-02', () => []],
  ])('filters by %s', async (_name, query, expected) => {
    expect(await search(query())).toEqual(expected().map((t) => t.transaction_id));
  });

  it('another merchant’s transaction id finds nothing', async () => {
    expect(await search(`transaction_id=${foreign.transaction_id}`)).toEqual([]);
  });

  it('sorts by amount both ways', async () => {
    expect(await search('sort=amount&dir=asc&currency=USD')).toEqual([declined, probe, usd].map((t) => t.transaction_id));
    expect(await search('sort=amount&dir=desc')).toEqual([eur, usd, probe, declined].map((t) => t.transaction_id));
  });

  it.each([
    ['status=nope', 'status'],
    ['from=2026-02-30', 'from'],
    ['min_amount=5', 'min_amount'],
    ['currency=USD&min_amount=abc', 'min_amount'],
    ['last4=12a4', 'last4'],
    ['page=0', 'page'],
    ['page=201', 'page'],
    ['from=2026-02-02&to=2026-02-01', 'to'],
  ])('refuses %s with a 400 naming the field', async (query, field) => {
    const answer = await staff.get(`/portal/transactions?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(field);
  });

  it('shows shopper-controlled text as text', async () => {
    for (const path of [`/portal/transactions/${probe.transaction_id}`, `/portal/transactions?order_no=${encodeURIComponent(probe.order_no)}`]) {
      const answer = await staff.get(path);
      expect(answer.status).toBe(200);
      expect(answer.body).not.toContain(PROBE);
      expect(answer.body).toContain('&lt;svg/onload=alert(1)&gt;@probe.example');
      expect(answer.body).toContain('=HYPERLINK(&quot;x&quot;)&lt;svg');
    }
  });
});

describe('portal transactions CSV export', () => {
  it('exports the filtered rows with formulas neutralised', async () => {
    const answer = await staff.get('/portal/transactions/export.csv?currency=USD');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/csv/);
    expect(answer.headers['content-disposition']).toMatch(/^attachment; filename="transactions-/);
    const lines = answer.body.trim().split('\r\n');
    expect(lines[0]).toMatch(/^"created_at","transaction_id","order_no",/);
    expect(lines).toHaveLength(4);
    const probeLine = lines.find((line) => line.includes(probe.transaction_id))!;
    expect(probeLine).toContain(`"'=HYPERLINK(""x"")`);
    expect(probeLine).not.toMatch(/(^|,)"[=+\-@]/);
    expect(answer.body).not.toContain(foreign.transaction_id);
    expect(answer.body).toContain(',"12.34",');
  });

  it('is written to the audit log', async () => {
    const [row] = await gw.database.query<{ n: number }>("SELECT count(*)::int AS n FROM portal_audit_log WHERE action = 'transactions.export' AND merchant_id = $1", [shop.ids.merchant_id]);
    expect(row!.n).toBeGreaterThan(0);
  });
});
