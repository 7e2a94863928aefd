// A forbidden move is refused at the one transition function, before any SQL; a move made from a
// state the row has left is refused by the repository; a state no machine knows is refused by the
// column's CHECK. In each case the row stays as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTimes } from '../../src/app/clock/check-times.ts';
import { PAYMENT_MACHINE } from '../../src/domain/payment.ts';
import { ForbiddenTransition } from '../../src/domain/state-machine.ts';
import { lockPayment, transitionPayment } from '../../src/db/repositories/payments.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { SignedClient } from '../support/client.ts';

let gw: TestGateway;
let shop: SignedClient;
beforeAll(async () => {
  gw = await startTestGateway();
  shop = await gw.merchant();
});
afterAll(() => gw?.close());

const rowOf = async (id: string) =>
  (await gw.database.query<{ status: string; version: number }>('SELECT status, version FROM payments WHERE id = $1', [id]))[0]!;

async function capturedPayment(): Promise<string> {
  const answer = await shop.post('/v1/authorise', cardPayment(shop.ids));
  expect(answer.body.order_status).toBe('1');
  return answer.body.transaction_id;
}

describe('payment transitions through the database', () => {
  it('refuses captured → authorised at the transition function, and the row is unchanged', async () => {
    const id = await capturedPayment();
    const before = await rowOf(id);
    await expect(
      gw.database.db.transaction(async (tx) => {
        const payment = (await lockPayment(tx, shop.ids.account_id, id))!;
        return transitionPayment(tx, id, PAYMENT_MACHINE.move(payment.status, 'authorised'), checkTimes(gw.gateway.deps));
      }),
    ).rejects.toThrow(ForbiddenTransition);
    expect(await rowOf(id)).toEqual(before);
  });

  it('refuses a move made from a state the row has since left', async () => {
    const id = await capturedPayment();
    const before = await rowOf(id);
    const stale = PAYMENT_MACHINE.move('authorised', 'cancelled');
    await expect(gw.database.db.transaction((tx) => transitionPayment(tx, id, stale, checkTimes(gw.gateway.deps)))).rejects.toThrow(/no longer authorised/);
    expect(await rowOf(id)).toEqual(before);
  });

  it('refuses a state no machine knows at the column CHECK', async () => {
    const id = await capturedPayment();
    await expect(gw.database.query(`UPDATE payments SET status = 'settled' WHERE id = $1`, [id])).rejects.toThrow(/payments_status_check/);
    expect((await rowOf(id)).status).toBe('captured');
  });
});
