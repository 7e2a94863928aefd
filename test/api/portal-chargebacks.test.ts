// A payment's chargebacks in the portal, over HTTP as a signed-in member: a payment with the
// sandbox dispute card, the test clock moved a day and the poll run, shows a "Chargebacks" panel
// (id, amount, reason code and reason, open, when) and a marker on its row of the list; the card
// the merchant wins shows the dispute reversed the day after. A payment without disputes has no
// panel, and another merchant's member finds neither the transaction nor its chargeback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/app/context.ts';
import { pollDisputes } from '../../src/app/disputes/poll.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { pay, type Txn } from '../support/lifecycle.ts';
import { createMember, signIn, type PortalClient } from '../support/portal.ts';

const DAY = 86_400_000;
const DISPUTED = '4000000000000267';
const DISPUTED_WON = '4000000000002685';
const OPEN = 'Open: the amount was taken from your balance';
const REVERSED = 'Reversed: won, the amount came back';

const clock = new FakeClock('2026-11-23T09:00:00Z');
let gw: TestGateway;
let shop: SignedClient;
let staff: PortalClient;
let operator: PortalClient;
let stranger: PortalClient;
let lost: Txn;
let won: Txn;
let plain: Txn;

beforeAll(async () => {
  // Business time moves the disputes; sessions keep to the wall clock, so a day's advance signs no one out.
  gw = await startTestGateway({ clock, wallClock: systemClock });
  shop = await gw.merchant();
  const other = await gw.merchant();
  lost = await pay(shop, { card: DISPUTED, amount: '25.00' });
  won = await pay(shop, { card: DISPUTED_WON, amount: '7.50' });
  plain = await pay(shop, { amount: '3.00' });
  staff = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'viewer'));
  operator = await signIn(gw, await createMember(gw, shop.ids.merchant_id, 'operator'));
  stranger = await signIn(gw, await createMember(gw, other.ids.merchant_id, 'viewer'));
}, 120_000);
afterAll(() => gw?.close());

async function transactionPage(client: PortalClient, txn: Txn): Promise<string> {
  const answer = await client.get(`/portal/transactions/${txn.transaction_id}`);
  expect(answer.status, answer.body).toBe(200);
  return answer.body;
}

/** The page's Chargebacks panel, or undefined when it has none. */
function panel(page: string): string | undefined {
  const start = page.indexOf('<section aria-labelledby="chargebacks">');
  return start < 0 ? undefined : page.slice(start, page.indexOf('</section>', start));
}

/** The list's rows that carry the chargeback marker, by transaction id. */
function markedRows(list: string): string[] {
  return [...list.matchAll(/<tr><td>[^<]*<\/td><td><a href="\/portal\/transactions\/([^"]+)">.*?<\/tr>/g)].filter((row) => row[0].includes('status-chargeback-open')).map((row) => decodeURIComponent(row[1]!));
}

/** What the page's Refund form offers ("up to …"), or undefined when it has no Refund form. */
function refundOffer(page: string): string | undefined {
  return /<h3>Refund<\/h3>[\s\S]*?, up to ([^<]+)<\/label>/.exec(page)?.[1];
}

const disputeIds = async (txn: Txn) =>
  (await gw.database.query<{ id: string }>('SELECT id FROM disputes WHERE payment_id = $1', [txn.transaction_id])).map((row) => row.id);

describe('chargebacks in the portal', () => {
  it('shows no panel before the dispute, and none on a payment without disputes', async () => {
    expect(panel(await transactionPage(staff, lost))).toBeUndefined();
    expect(panel(await transactionPage(staff, plain))).toBeUndefined();
    expect(markedRows((await staff.get('/portal/transactions')).body)).toEqual([]);
  });

  it('a day after capture, the poll records the disputes and the page shows them open', async () => {
    clock.advance(DAY);
    expect(await pollDisputes(gw.gateway.deps)).toBe(2);

    const shown = panel(await transactionPage(staff, lost));
    expect(shown).toBeDefined();
    const [id] = await disputeIds(lost);
    expect(shown).toContain(id);
    expect(shown).toContain('25.00 USD');
    expect(shown).toContain('<td>10.4</td>');
    expect(shown).toContain('Other fraud: card-absent environment');
    expect(shown).toContain(OPEN);
    expect(shown).not.toContain(REVERSED);
    expect(shown).toContain('2026-11-24 09:00 UTC');

    const wonShown = panel(await transactionPage(staff, won))!;
    expect(wonShown).toContain('7.50 USD');
    expect(wonShown).toContain('<td>13.1</td>');
    expect(wonShown).toContain(OPEN);

    expect(panel(await transactionPage(staff, plain))).toBeUndefined();
    expect(markedRows((await staff.get('/portal/transactions')).body).sort()).toEqual([lost.transaction_id, won.transaction_id].sort());
  });

  it('the day after, the won card’s dispute shows reversed, with when; the lost one stays open', async () => {
    clock.advance(DAY);
    expect(await pollDisputes(gw.gateway.deps)).toBe(1);

    const wonShown = panel(await transactionPage(staff, won))!;
    expect(wonShown).toContain(REVERSED);
    expect(wonShown).not.toContain(OPEN);
    expect(wonShown).toContain('2026-11-25 09:00 UTC');
    const [wonId] = await disputeIds(won);
    expect(wonShown).toContain(wonId);

    expect(panel(await transactionPage(staff, lost))).toContain(OPEN);
    expect(markedRows((await staff.get('/portal/transactions')).body)).toEqual([lost.transaction_id]);
  });

  // Runs after the two polls above: `lost` has its 25.00 dispute open, `won` had its 7.50 reversed.
  it('offers to refund only what a refund may take: an open chargeback’s amount is with the shopper already', async () => {
    expect(refundOffer(await transactionPage(operator, plain))).toBe('3.00');
    expect(refundOffer(await transactionPage(operator, won))).toBe('7.50');
    // 25.00 captured, 25.00 taken back by the open dispute: a refund is refused 5010, so none is offered.
    expect(refundOffer(await transactionPage(operator, lost))).toBeUndefined();
  });

  it('another merchant’s member gets 404 for the transaction and never sees its chargeback', async () => {
    const [id] = await disputeIds(lost);
    for (const txn of [lost, won]) {
      const answer = await stranger.get(`/portal/transactions/${txn.transaction_id}`);
      expect(answer.status).toBe(404);
      expect(answer.body).not.toContain(id);
      expect(panel(answer.body)).toBeUndefined();
    }
    const list = await stranger.get('/portal/transactions');
    expect(list.status).toBe(200);
    expect(list.body).not.toContain(lost.transaction_id);
    expect(markedRows(list.body)).toEqual([]);
  });
});
