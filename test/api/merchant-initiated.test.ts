// A merchant-initiated charge of a stored credential through the command API: no wire body, no
// CVC, no shopper. A scheduler (subscriptions) builds the command directly and calls the use
// case; the payment is then like any other through the merchant's interface (/v1/retrievalTrans).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authoriseCard } from '../../src/app/authorise/authorise-card.ts';
import { merchantInitiatedCharge } from '../../src/app/payments/command.ts';
import type { AuthoriseRequest, Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { AccountRow } from '../../src/db/schema.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { allowQueriesFrom } from '../support/lifecycle.ts';

let gw: TestGateway;
let shop: SignedClient;
let stranger: SignedClient;
let account: AccountRow;

// The simulator, with a record of what the core asks it to authorise (the charge's flags).
const asked: AuthoriseRequest[] = [];
const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
const recording: Connector = {
  ...simulator,
  authorise(request) {
    asked.push(request);
    return simulator.authorise(request);
  },
};
const askedFor = (paymentId: string) => asked.find((request) => request.paymentId === paymentId);

beforeAll(async () => {
  gw = await startTestGateway({ connectors: { get: (name) => (name === 'simulator' ? recording : undefined), names: () => ['simulator'] } });
  shop = await gw.merchant();
  stranger = await gw.merchant();
  await allowQueriesFrom(gw, [shop]);
  account = (await gw.gateway.server.directory.find(shop.ids.merchant_id, shop.ids.account_id))!.account;
});
afterAll(() => gw?.close());

/** The shopper's first payment, which stores the card (token_flag). */
async function storedCard(client: SignedClient): Promise<string> {
  return (await storingPayment(client)).tokenId;
}

async function storingPayment(client: SignedClient): Promise<{ tokenId: string; paymentId: string }> {
  const first = await client.post('/v1/authorise', cardPayment(client.ids, { token_flag: '1' }));
  expect(first.body.order_status).toBe('1');
  expect(first.body.token_id).toMatch(/^TK/);
  return { tokenId: first.body.token_id, paymentId: first.body.transaction_id };
}

const networkIdOf = async (paymentId: string) =>
  (await gw.database.query<{ network_transaction_id: string | null }>('SELECT network_transaction_id FROM payments WHERE id = $1', [paymentId]))[0]
    ?.network_transaction_id;

const charge = (tokenId: string, orderNo: string, minor = 2_500) =>
  merchantInitiatedCharge({ merchantId: shop.ids.merchant_id, accountId: shop.ids.account_id, orderNo, amount: { minor, currency: 'USD' }, tokenId, record: { note: 'cycle 2' } });

describe('a merchant-initiated charge of a stored credential', () => {
  it('charges the stored card with no wire body and no CVC, and the merchant finds it through the API', async () => {
    const tokenId = await storedCard(shop);
    const orderNo = `MIT-${Date.now()}`;
    const payment = await authoriseCard(gw.gateway.deps, account, charge(tokenId, orderNo));
    expect(payment).toMatchObject({ status: 'captured', amount: 2_500, tokenId, orderNo });

    const answer = await shop.post('/v1/retrievalTrans', { ...shop.ids, order_no: orderNo }, { format: 'form' });
    expect(answer.status).toBe(200);
    expect(answer.signed).toBe(true);
    expect(answer.body.orders_list).toEqual([
      expect.objectContaining({ order_no: orderNo, transaction_id: payment.id, amount: '25.00', currency: 'USD', payment_status: '3000' }),
    ]);
    const [row] = await gw.database.query<{ request: Record<string, unknown> }>('SELECT request FROM payments WHERE id = $1', [payment.id]);
    expect(row!.request).toMatchObject({ note: 'cycle 2' });
    expect(JSON.stringify(row!.request)).not.toContain('security_code');
  });

  it("flags the charge to the connector as merchant-initiated, quoting the network id of the payment that stored the card", async () => {
    const { tokenId, paymentId: firstId } = await storingPayment(shop);
    expect(askedFor(firstId)).toMatchObject({ initiator: 'shopper', storedCredential: { usage: 'first' } });
    const firstNetworkId = await networkIdOf(firstId);
    expect(firstNetworkId).toEqual(expect.any(String));

    const payment = await authoriseCard(gw.gateway.deps, account, charge(tokenId, `MIT-${Date.now()}-flags`));
    const request = askedFor(payment.id)!;
    expect(request).toMatchObject({ initiator: 'merchant', storedCredential: { usage: 'subsequent', networkTransactionId: firstNetworkId } });
    expect(request.card?.securityCode).toBeUndefined();
    // The charge's own network id is kept too, for whatever quotes it later.
    expect(payment.networkTransactionId).toEqual(expect.any(String));
    expect(await networkIdOf(payment.id)).toBe(payment.networkTransactionId);
  });

  it('quotes the network id the command gives, when the scheduler has it', async () => {
    const tokenId = await storedCard(shop);
    const command = merchantInitiatedCharge({
      merchantId: shop.ids.merchant_id,
      accountId: shop.ids.account_id,
      orderNo: `MIT-${Date.now()}-given`,
      amount: { minor: 1_000, currency: 'USD' },
      tokenId,
      networkTransactionId: 'NT-FROM-SCHEDULER',
    });
    const payment = await authoriseCard(gw.gateway.deps, account, command);
    expect(askedFor(payment.id)).toMatchObject({ initiator: 'merchant', storedCredential: { usage: 'subsequent', networkTransactionId: 'NT-FROM-SCHEDULER' } });
  });

  it('is idempotent per order: the same command again gives the same payment, another amount is refused', async () => {
    const tokenId = await storedCard(shop);
    const orderNo = `MIT-${Date.now()}-again`;
    const first = await authoriseCard(gw.gateway.deps, account, charge(tokenId, orderNo));
    const again = await authoriseCard(gw.gateway.deps, account, charge(tokenId, orderNo));
    expect(again.id).toBe(first.id);
    await expect(authoriseCard(gw.gateway.deps, account, charge(tokenId, orderNo, 2_600))).rejects.toMatchObject({ codeName: 'order_conflict' });
  });

  it("refuses another account's stored card, and stores nothing", async () => {
    const theirs = await storedCard(stranger);
    const orderNo = `MIT-${Date.now()}-theirs`;
    await expect(authoriseCard(gw.gateway.deps, account, charge(theirs, orderNo))).rejects.toMatchObject({ codeName: 'unknown_token' });
    expect(await gw.database.query('SELECT 1 FROM payments WHERE order_no = $1', [orderNo])).toEqual([]);
  });

  it('is the only kind of payment a merchant may start alone', async () => {
    const command = { ...charge('TK00000000000000000000000000', `MIT-${Date.now()}-card`), source: { kind: 'token' as const, tokenId: 'TK00000000000000000000000000' } };
    await expect(authoriseCard(gw.gateway.deps, account, command)).rejects.toThrow(/merchant-initiated/);
  });
});
