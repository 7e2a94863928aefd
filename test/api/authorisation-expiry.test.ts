// An authorisation never captured on a manual-capture account expires on its connector's
// schedule (the sandbox's seven days, moved here by the injected clock): voided at the
// processor, cancelled with 2010, the hold released in the books, the merchant notified. A
// capture that comes after the expiry but before the round is refused as it is after the round.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAuthorisations } from '../../src/app/capture/expire-authorisations.ts';
import type { SignedClient } from '../support/client.ts';
import { FakeClock, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { booksOf, capture, eventTypes, expectLedgerBalanced, orderOf, pay, paymentRow, scriptedProcessor } from '../support/lifecycle.ts';
import { routeAccount } from '../support/routing.ts';

const DAY = 86_400_000;
const clock = new FakeClock(new Date());
const processor = scriptedProcessor();
let gw: TestGateway;
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ clock, connectors: processor.connectors });
  manual = await gw.merchant({ captureMode: 'manual' });
});
afterAll(() => gw?.close());

describe('authorisation expiry', () => {
  it('voids an uncaptured authorisation after seven days, releases its hold and notifies the merchant', async () => {
    const held = await pay(manual, { amount: '12.00' });
    const captured = await pay(manual, { amount: '5.00' });
    await capture(manual, captured);
    const auto = await pay(await gw.merchant(), { amount: '3.00' });

    clock.advance(6 * DAY);
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(0);
    expect((await paymentRow(gw, held.transaction_id)).status).toBe('authorised');

    clock.advance(DAY + 60_000);
    const voidsBefore = processor.calls.cancel;
    expect(await expireAuthorisations(gw.gateway.deps)).toBeGreaterThanOrEqual(1);
    expect(processor.calls.cancel).toBeGreaterThan(voidsBefore);
    expect(await paymentRow(gw, held.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    expect(await booksOf(gw, held.transaction_id)).toEqual({});
    expect(await eventTypes(gw, held.transaction_id)).toEqual(['payment.authorised', 'payment.cancelled']);
    expect((await paymentRow(gw, captured.transaction_id)).status).toBe('captured');
    expect((await paymentRow(gw, auto.transaction_id)).status).toBe('captured');

    const late = await capture(manual, held);
    expect(late).toMatchObject({ capture_status: '0', error_message: '5007:the transaction is already cancelled' });
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(0);
    await expectLedgerBalanced(gw);
  });
});

describe('its notification, as docs/notifications.md lists it', () => {
  it('names the release by the gateway and the expire-authorisations task in the payment.cancelled row of the event table', () => {
    const docs = readFileSync(new URL('../../docs/notifications.md', import.meta.url), 'utf8');
    const row = docs.split('\n').find((line) => line.startsWith('| `payment.cancelled` |'));
    expect(row).toBeDefined();
    const [, sentWhen, emittedBy] = row!.split(' | ');
    expect(sentWhen).toMatch(/expir/);
    expect(emittedBy).toMatch(/expire-authorisations/);
  });
});

describe('a capture after the expiry, before the round has run', () => {
  /** Everything the gateway keeps of a payment: a refused capture must leave all of it as it was. */
  const kept = async (id: string) => ({
    payment: (await gw.database.query('SELECT * FROM payments WHERE id = $1', [id]))[0],
    operations: await gw.database.query('SELECT * FROM payment_operations WHERE payment_id = $1', [id]),
    events: await eventTypes(gw, id),
    books: await booksOf(gw, id),
  });

  it('is refused as the round will leave it (5007): nothing sent to the processor, nothing stored; the round then records the expiry', async () => {
    const held = await pay(manual, { amount: '12.00' });
    const inTime = await pay(manual, { amount: '4.00' });
    clock.advance(7 * DAY - 60_000);
    expect((await capture(manual, inTime)).capture_status).toBe('1');

    clock.advance(2 * 60_000);
    const before = await kept(held.transaction_id);
    const captures = processor.calls.capture;
    const early = await capture(manual, held);
    expect(early).toEqual({ ...orderOf(held), capture_status: '0', error_message: '5007:the transaction is already cancelled' });
    expect(processor.calls.capture).toBe(captures);
    expect(await kept(held.transaction_id)).toEqual(before);

    // The round records the expiry as usual, and a capture after it is answered the same.
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(1);
    expect(await paymentRow(gw, held.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    expect(await eventTypes(gw, held.transaction_id)).toEqual(['payment.authorised', 'payment.cancelled']);
    expect(await capture(manual, held)).toEqual(early);
    expect(processor.calls.capture).toBe(captures);
    await expectLedgerBalanced(gw);
  });
});

describe('an account routed to another connector since', () => {
  const ownClock = new FakeClock(new Date());
  const own = scriptedProcessor({ capped: 4 });
  let alone: TestGateway;
  beforeAll(async () => {
    alone = await startTestGateway({ clock: ownClock, connectors: own.connectors });
  });
  afterAll(() => alone?.close());

  it('still has its holds on the old connector voided on that connector\'s schedule', async () => {
    const shop = await alone.merchant({ captureMode: 'manual' });
    const route = (connector: string) => routeAccount(alone, shop, connector);
    // Taken on `capped`, which no account uses once this one is routed back to the simulator.
    await route('capped');
    const held = await pay(shop, { amount: '12.00' });
    expect((await paymentRow(alone, held.transaction_id)).status).toBe('authorised');
    await route('simulator');
    ownClock.advance(7 * DAY + 60_000);
    expect(await expireAuthorisations(alone.gateway.deps)).toBe(1);
    expect(await paymentRow(alone, held.transaction_id)).toMatchObject({ status: 'cancelled', result_code: '2010' });
    await expectLedgerBalanced(alone);
  });
});
