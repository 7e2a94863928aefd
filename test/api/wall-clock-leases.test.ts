// Leases and "ask the processor again" timers run on the wall clock, business due times on the
// business clock: `acquiro clock advance` (the sandbox's test clock, run here through runCommand)
// must neither hurry the unknown-outcome sweeper into asking about a call still in flight, nor end
// a lease another worker holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireAuthorisations } from '../../src/app/capture/expire-authorisations.ts';
import { resolveUnknownPayments } from '../../src/app/payments/resolve-unknown.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { AuthoriseRequest, Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import { QUEUES } from '../../src/db/repositories/leases.ts';
import { leaseDuePayments } from '../../src/db/repositories/payments.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { pay, paymentRow } from '../support/lifecycle.ts';
import { until } from '../support/until.ts';

const DAY_MS = 86_400_000;

// The simulator, with its authorisations held in flight until the test lets them go.
const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
const authorised: string[] = [];
const asked = { status: 0, cancel: 0 };
let holding: Promise<void> | undefined;
let letGo: () => void = () => {};
let inFlight = 0;
const holdingConnector: Connector = {
  ...simulator,
  async authorise(request: AuthoriseRequest) {
    inFlight += 1;
    await holding;
    authorised.push(request.paymentId);
    return simulator.authorise(request);
  },
  paymentStatus(request) {
    asked.status += 1;
    return simulator.paymentStatus(request);
  },
  cancel(request) {
    asked.cancel += 1;
    return simulator.cancel(request);
  },
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ connectors: { get: (name) => (name === 'simulator' ? holdingConnector : undefined), names: () => ['simulator'] } });
});
afterAll(() => gw?.close());

/** Moves business time on by `days` (the CLI), and waits until this process's clock follows. */
async function advanceDays(days: number): Promise<void> {
  const target = gw.gateway.deps.clock.now().getTime() + days * DAY_MS;
  expect((await runCommand(['clock', 'advance', '--days', String(days)], gw.gateway.deps)).exitCode).toBe(0);
  await until('the business clock following the advance', () => gw.gateway.deps.clock.now().getTime() >= target, { withinMs: 5_000, everyMs: 20 });
}

describe('technical timers on the wall clock', () => {
  it('a payment whose processor call is in flight across a clock advance ends approved, charged once', async () => {
    const shop = await gw.merchant();
    holding = new Promise((resolve) => (letGo = resolve));
    const answer = shop.post('/v1/authorise', cardPayment(shop.ids));
    await until('the authorisation at the processor', () => inFlight > 0, { everyMs: 10 });

    await advanceDays(2);
    // Business time is days past the claim; the call may still be running: nobody asks about it.
    const statusBefore = asked.status;
    expect(await resolveUnknownPayments(gw.gateway.deps)).toBe(0);
    expect(asked.status).toBe(statusBefore);

    letGo();
    const { body } = await answer;
    expect(body.order_status).toBe('1');
    expect((await paymentRow(gw, body.transaction_id)).status).toBe('captured');
    expect(authorised.filter((id) => id === body.transaction_id)).toHaveLength(1);
  });

  it('a lease taken, then business time advanced by days: a second sweeper does not take the row', async () => {
    holding = undefined;
    const manual = await gw.merchant({ captureMode: 'manual' });
    const { transaction_id: id } = await pay(manual);
    await advanceDays(8);
    // A worker leases the expired authorisation (for a minute of wall time) and is still busy.
    const now = gw.gateway.deps.clock.now();
    const held = await leaseDuePayments(gw.database.db, QUEUES.expiringAuthorisations, gw.gateway.deps, 50, 60_000, { dueBy: new Date(now.getTime() - 7 * DAY_MS), scope: 'simulator' });
    expect(held.map((payment) => payment.id)).toContain(id);

    await advanceDays(3);
    const cancels = asked.cancel;
    expect(await expireAuthorisations(gw.gateway.deps)).toBe(0);
    expect(asked.cancel).toBe(cancels);
    expect((await paymentRow(gw, id)).status).toBe('authorised');
  });
});

describe('the queues', () => {
  it('keep a lease out of a column that holds a business due time', () => {
    for (const queue of Object.values(QUEUES)) {
      if (queue.dueOn === 'business') expect(queue.leaseColumn).not.toBe(queue.dueColumn);
    }
  });
});
