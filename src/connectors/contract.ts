// The contract every connector passes (a real acquirer's adapter runs this same suite against its
// processor's test environment; test/unit/simulator-contract.test.ts runs it on the simulator).
// It checks the seam, not the processor: results are values (never thrown), outcomes are ones the
// core understands, amounts go out as given, asking twice about one attempt (its idempotency key)
// gives one answer while another attempt's key is answered on its own card, and a call whose
// deadline has passed (its abort signal) ends soon.
import { describe, expect, it } from 'vitest';
import type { AuthoriseOutcome, AuthoriseRequest, CardDetails, Connector, Credentials, DeclineReason } from './port.ts';

export interface ContractFixtures {
  /** Cards this processor's test environment approves, declines, and challenges (3-D Secure). */
  readonly approvedCard: CardDetails;
  readonly declinedCard: CardDetails;
  readonly challengeCard?: CardDetails;
  /** A payment method the connector offers as a redirect, if any. */
  readonly redirectMethod?: string;
  /** The test environment's merchant connection, for a connector that polls disputes by credentials (`disputesBy`). */
  readonly credentials?: Credentials;
}

const DECLINE_REASONS: readonly DeclineReason[] = [
  'generic',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'invalid_card',
  'lost_or_stolen',
  'authentication_failed',
  'processor_error',
  'abandoned',
];

let sequence = 0;
const paymentId = () => `TCONTRACT${Date.now().toString(36).toUpperCase()}${(sequence++).toString().padStart(6, '0')}`;

function request(card: CardDetails | undefined, overrides: Partial<AuthoriseRequest> = {}): AuthoriseRequest {
  const id = paymentId();
  return {
    paymentId: id,
    idempotencyKey: id,
    orderNo: `ORD-${id}`,
    amount: { minor: 1234, currency: 'EUR' },
    capture: false,
    ...(card ? { card } : {}),
    shopper: { email: 'contract@example.com', ip: '203.0.113.7', country: 'DE' },
    returnUrl: 'https://merchant.example/return',
    ...overrides,
  };
}

async function authorised(connector: Connector, req: AuthoriseRequest): Promise<AuthoriseOutcome> {
  const result = await connector.authorise(req);
  expect(result.ok, result.ok ? '' : `${result.error.kind}: ${result.error.message}`).toBe(true);
  return (result as { ok: true; value: AuthoriseOutcome }).value;
}

export function connectorContract(name: string, make: () => Connector, fixtures: ContractFixtures): void {
  describe(`connector contract: ${name}`, () => {
    const connector = make();

    it('names itself', () => {
      expect(connector.name).toMatch(/^[a-z][a-z0-9_-]*$/);
    });

    it('approves with a reference, and captures only when asked', async () => {
      const held = await authorised(connector, request(fixtures.approvedCard));
      expect(held).toMatchObject({ status: 'approved', captured: false });
      expect((held as { reference: string }).reference).toBeTruthy();
      expect(await authorised(connector, request(fixtures.approvedCard, { capture: true }))).toMatchObject({ status: 'approved', captured: true });
    });

    it('declines with a reason the core knows', async () => {
      const declined = await authorised(connector, request(fixtures.declinedCard));
      expect(declined.status).toBe('declined');
      expect(DECLINE_REASONS).toContain((declined as { reason: DeclineReason }).reason);
    });

    it.runIf(Boolean(fixtures.challengeCard))('asks for authentication with a URL for the shopper', async () => {
      const outcome = await authorised(connector, request(fixtures.challengeCard));
      expect(outcome).toMatchObject({ status: 'action_required', action: 'authenticate' });
      expect(new URL((outcome as { url: string }).url).protocol).toMatch(/^https?:$/);
    });

    it.runIf(Boolean(fixtures.redirectMethod))('sends an APM shopper to the issuer with a URL', async () => {
      const outcome = await authorised(connector, request(undefined, { paymentMethod: fixtures.redirectMethod! }));
      expect(outcome).toMatchObject({ status: 'action_required', action: 'redirect' });
    });

    it('answers the same attempt the same way twice (its idempotency key)', async () => {
      const req = request(fixtures.approvedCard);
      const first = await authorised(connector, req);
      const second = await authorised(connector, req);
      expect(second).toEqual(first);
    });

    it('answers each attempt of one payment on its own key: a declined key stays declined, a new key charges the new card', async () => {
      const declined = request(fixtures.declinedCard);
      expect((await authorised(connector, declined)).status).toBe('declined');
      // The declined attempt's key sent again, whatever card it carries, is that attempt's answer.
      expect((await authorised(connector, { ...declined, card: fixtures.approvedCard })).status).toBe('declined');
      // A hosted page's next attempt: the same payment, a key of its own.
      const next = await authorised(connector, { ...declined, idempotencyKey: `${declined.paymentId}-2`, card: fixtures.approvedCard });
      expect(next.status).toBe('approved');
    });

    it('returns values, never throws, for a request it cannot serve', async () => {
      const result = await connector.authorise(request(undefined));
      expect(typeof result.ok).toBe('boolean');
      if (!result.ok) expect(['timeout', 'network', 'unavailable', 'unreadable', 'unsupported']).toContain(result.error.kind);
    });

    it('does not change the request it is given', async () => {
      const req = request(fixtures.approvedCard);
      const copy = structuredClone(req);
      await connector.authorise(req);
      expect(req).toEqual(copy);
    });

    it('captures, voids and refunds an approved payment with references', async () => {
      const approved = (await authorised(connector, request(fixtures.approvedCard))) as { reference: string };
      const base = { paymentId: paymentId(), reference: approved.reference, amount: { minor: 1234, currency: 'EUR' } };
      for (const result of [
        await connector.capture({ ...base, operationId: 'CP1' }),
        await connector.cancel(base),
        await connector.refund({ ...base, refundId: 'RF1', amount: { minor: 500, currency: 'EUR' } }),
      ]) {
        expect(result.ok).toBe(true);
        if (result.ok) expect(['succeeded', 'pending', 'failed']).toContain(result.value.status);
      }
    });

    it('answers a call whose deadline has passed (its signal aborted) soon, with a value, never hanging', async () => {
      const approved = (await authorised(connector, request(fixtures.approvedCard))) as { reference: string };
      const aborted = AbortSignal.abort();
      const base = { paymentId: paymentId(), reference: approved.reference, amount: { minor: 1234, currency: 'EUR' }, signal: aborted };
      const soon = <T>(call: Promise<T>) =>
        Promise.race([call, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000).unref())]);
      for (const answer of await Promise.all([
        soon(connector.authorise({ ...request(fixtures.approvedCard), signal: aborted })),
        soon(connector.capture({ ...base, operationId: 'CP2' })),
        soon(connector.cancel(base)),
        soon(connector.refund({ ...base, refundId: 'RF2', amount: { minor: 500, currency: 'EUR' } })),
        soon(connector.paymentStatus({ paymentId: base.paymentId, idempotencyKey: base.paymentId, reference: approved.reference, signal: aborted })),
        soon(connector.refundStatus({ refundId: 'RF2', reference: approved.reference, signal: aborted })),
      ])) {
        expect(answer).not.toBe('hung');
        expect(typeof (answer as { ok: unknown }).ok).toBe('boolean');
      }
    });

    it('answers a status query with a value, also for a payment it never saw', async () => {
      const id = paymentId();
      const result = await connector.paymentStatus({ paymentId: id, idempotencyKey: id });
      expect(typeof result.ok).toBe('boolean');
    });

    it('states a schedule the ledger can use, if any', () => {
      for (const days of [connector.schedule?.settlementDays ?? 0, connector.schedule?.authorisationExpiryDays ?? 0]) {
        expect(Number.isInteger(days) && days >= 0).toBe(true);
      }
    });

    it('states how many calls it accepts at once as a positive integer, if it states it', () => {
      if (connector.maxCallsInFlight !== undefined) expect(Number.isInteger(connector.maxCallsInFlight) && connector.maxCallsInFlight >= 1).toBe(true);
    });

    it('lists its payment methods and their banks as the core reads them', () => {
      for (const method of connector.paymentMethods?.() ?? []) {
        expect(method.name).toMatch(/^[a-z][a-z0-9_]*$/);
        for (const bank of connector.banks?.(method.name) ?? []) expect(bank).toEqual({ code: expect.any(String), name: expect.any(String) });
      }
    });

    it('never approves a completion it cannot read (the core never decides "approved" itself)', async () => {
      const id = paymentId();
      const base = { paymentId: id, idempotencyKey: id, reference: 'ref', amount: { minor: 1234, currency: 'EUR' }, capture: false, result: {} };
      for (const complete of [connector.completeAuthentication, connector.completeRedirect]) {
        if (!complete) continue;
        const result = await complete.call(connector, base);
        if (result.ok) expect(result.value.status).not.toBe('approved');
      }
    });

    it('answers a merchant-initiated charge of a stored card, without a CVC, with a value', async () => {
      const { securityCode: _cvc, ...stored } = fixtures.approvedCard;
      const result = await connector.authorise(request(stored, { initiator: 'merchant', storedCredential: { usage: 'subsequent', networkTransactionId: 'NTID123' } }));
      expect(typeof result.ok).toBe('boolean');
    });

    it.runIf(Boolean(connector.payouts))('creates a payout and answers its status with values', async () => {
      const payouts = connector.payouts!;
      const created = await payouts.createPayout({ payoutId: `PO${paymentId()}`, amount: { minor: 1000, currency: 'EUR' }, beneficiary: {}, reference: 'contract' });
      expect(typeof created.ok).toBe('boolean');
      expect(typeof (await payouts.payoutStatus({ payoutId: 'PO-unknown' })).ok).toBe('boolean');
    });

    it.runIf(Boolean(connector.disputes))('answers a dispute poll with reports the core can place and a cursor to start the next from', async () => {
      expect([undefined, 'connector', 'credentials']).toContain(connector.disputesBy);
      // A feed per merchant connection is asked with its credentials; a connector's one feed with none.
      const credentials = connector.disputesBy === 'credentials' ? (fixtures.credentials ?? {}) : {};
      const first = await connector.disputes!({ cursor: null, credentials, signal: new AbortController().signal });
      if (!first.ok) return;
      expect(typeof first.value.cursor).toBe('string');
      for (const report of first.value.reports) {
        expect(report).toMatchObject({ disputeId: expect.any(String), paymentReference: expect.any(String), reasonCode: expect.any(String), at: expect.any(Date) });
        expect(['opened', 'reversed']).toContain(report.stage);
        expect(Number.isSafeInteger(report.amount.minor) && report.amount.minor > 0).toBe(true);
      }
      // Its own cursor is one it reads again.
      expect(typeof (await connector.disputes!({ cursor: first.value.cursor, credentials, signal: new AbortController().signal })).ok).toBe('boolean');
    });
  });
}
