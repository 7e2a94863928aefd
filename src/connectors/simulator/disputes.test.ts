// The sandbox acquirer's dispute reports, on the injected clock: a dispute card's payment is
// reported opened a day after its capture, the winning card's also reversed two days after; each
// report once across polls that pass their cursor on, again to a poll that did not; never before
// its date, and not lost when its capture is dated before a time already polled.
import { describe, expect, it } from 'vitest';
import { createSimulator } from './index.ts';

const DAY = 86_400_000;
const card = (pan: string) => ({ pan, expiryMonth: 12, expiryYear: 2030, securityCode: '123' });
const signal = new AbortController().signal;

function sandbox() {
  let now = new Date('2026-11-23T09:00:00Z').getTime();
  const simulator = createSimulator({ baseUrl: 'http://gateway.test', now: () => new Date(now) });
  let cursor: string | null = null;
  const poll = async () => {
    const answer = await simulator.disputes!({ cursor, signal });
    if (!answer.ok) throw new Error(answer.error.message);
    cursor = answer.value.cursor;
    return answer.value.reports.map((r) => [r.stage, r.paymentReference, r.amount.minor, r.reasonCode, r.at.getTime() - start]);
  };
  const start = now;
  const authorise = async (pan: string, capture: boolean) => {
    const paymentId = `T${pan}${capture ? 'S' : 'A'}`;
    const answer = await simulator.authorise({ paymentId, idempotencyKey: paymentId, orderNo: paymentId, amount: { minor: 2500, currency: 'USD' }, capture, card: card(pan), shopper: {} });
    if (!answer.ok || answer.value.status !== 'approved') throw new Error('not approved');
    return { paymentId, reference: answer.value.reference };
  };
  return { simulator, poll, authorise, advance: (ms: number) => (now += ms) };
}

describe('the simulator’s disputes', () => {
  it('reports a sale with the dispute card opened a day after, once', async () => {
    const s = sandbox();
    const { reference } = await s.authorise('4000000000000267', true);
    expect(reference).toMatch(/_dispute$/);
    s.advance(DAY - 1);
    expect(await s.poll()).toEqual([]);
    s.advance(1);
    expect(await s.poll()).toEqual([['opened', reference, 2500, '10.4', DAY]]);
    s.advance(5 * DAY);
    expect(await s.poll()).toEqual([]);
  });

  it('answers a status query about a sale it remembers for its dispute as charged, and knows no uncaptured one', async () => {
    const s = sandbox();
    const sale = await s.authorise('4000000000000267', true);
    const status = await s.simulator.paymentStatus({ paymentId: sale.paymentId, idempotencyKey: sale.paymentId, signal });
    expect(status.ok && status.value).toMatchObject({ status: 'approved', captured: true, reference: sale.reference });
    const held = await s.authorise('4000000000000267', false);
    const unknown = await s.simulator.paymentStatus({ paymentId: held.paymentId, idempotencyKey: held.paymentId, signal });
    expect(unknown.ok && unknown.value).toMatchObject({ status: 'declined', reason: 'processor_error' });
  });

  it('reports the winning card opened, then reversed, in date order within one poll', async () => {
    const s = sandbox();
    const { reference } = await s.authorise('4000000000002685', true);
    s.advance(3 * DAY);
    expect(await s.poll()).toEqual([
      ['opened', reference, 2500, '13.1', DAY],
      ['reversed', reference, 2500, '13.1', 2 * DAY],
    ]);
  });

  it('dates an authorisation’s dispute from its capture, for the captured amount', async () => {
    const s = sandbox();
    const { paymentId, reference } = await s.authorise('4000000000000267', false);
    s.advance(2 * DAY);
    expect(await s.poll()).toEqual([]);
    await s.simulator.capture({ paymentId, reference, amount: { minor: 1500, currency: 'USD' }, operationId: 'CP1' });
    s.advance(DAY);
    expect(await s.poll()).toEqual([['opened', reference, 1500, '10.4', 3 * DAY]]);
  });

  it('hands the reports of a poll whose cursor never came back (the poller died) out again, until a later poll presents its cursor', async () => {
    const s = sandbox();
    const { reference } = await s.authorise('4000000000000267', true);
    s.advance(DAY);
    const first = await s.simulator.disputes!({ cursor: null, signal });
    const again = await s.simulator.disputes!({ cursor: null, signal });
    expect([first.ok && first.value.reports.length, again.ok && again.value.reports[0]?.paymentReference]).toEqual([1, reference]);
    const acked = await s.simulator.disputes!({ cursor: again.ok ? again.value.cursor : null, signal });
    expect(acked.ok && acked.value.reports).toEqual([]);
  });

  it('reports a capture dated before a time already polled (a process whose clock had not heard of an advance yet)', async () => {
    const s = sandbox();
    s.advance(3 * DAY);
    expect(await s.poll()).toEqual([]);
    s.advance(-3 * DAY);
    const { reference } = await s.authorise('4000000000000267', true);
    s.advance(3 * DAY);
    expect(await s.poll()).toEqual([['opened', reference, 2500, '10.4', DAY]]);
  });

  it('reports nothing for any other card', async () => {
    const s = sandbox();
    await s.authorise('4111111111111111', true);
    s.advance(3 * DAY);
    expect(await s.poll()).toEqual([]);
  });
});
