// The sandbox's slow card (4000000000000416): a merchant-initiated charge reaches the processor
// only after ACQUIRO_SANDBOX_CARD_DELAY (10 s by default), as the registry builds the simulator
// from the configuration; a call given up before then (the core's deadline) never reached it.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { AuthoriseRequest } from '../port.ts';
import { createConnectors } from '../registry.ts';

const SLOW = { pan: '4000000000000416', expiryMonth: 12, expiryYear: 2030, securityCode: '123' };

function charge(initiator: 'merchant' | 'shopper', signal?: AbortSignal): AuthoriseRequest {
  const id = `T-slow-${initiator}-${Math.random()}`;
  return {
    paymentId: id,
    idempotencyKey: id,
    initiator,
    orderNo: 'slow-card',
    amount: { minor: 1_000, currency: 'USD' },
    capture: true,
    card: SLOW,
    shopper: {},
    ...(signal ? { signal } : {}),
  };
}

const simulator = (delay: string) => createConnectors(loadConfig({ ACQUIRO_SANDBOX_CARD_DELAY: delay })).get('simulator')!;

describe('the sandbox’s slow card', () => {
  it('holds a merchant-initiated charge for ACQUIRO_SANDBOX_CARD_DELAY, then approves it', async () => {
    const started = performance.now();
    const result = await simulator('0.3').authorise(charge('merchant'));
    const took = performance.now() - started;
    expect(result).toMatchObject({ ok: true, value: { status: 'approved' } });
    expect(took).toBeGreaterThanOrEqual(290);
    // Not the default 10 s.
    expect(took).toBeLessThan(10_000);
  });

  it('answers the shopper at once', async () => {
    const started = performance.now();
    expect(await simulator('30').authorise(charge('shopper'))).toMatchObject({ ok: true, value: { status: 'approved' } });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('never reaches the processor when the call is given up during the hold', async () => {
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(), 100);
    const result = await simulator('30').authorise(charge('merchant', deadline.signal));
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });
});

/** A refund the sandbox holds (refund_reason sandbox_slow). */
const slowRefund = (refundId: string, signal?: AbortSignal) => ({
  paymentId: 'T-slow-refund',
  reference: 'sim_T-slow-refund',
  refundId,
  amount: { minor: 100, currency: 'USD' },
  reason: 'sandbox_slow',
  ...(signal ? { signal } : {}),
});

describe('the sandbox’s slow refund (refund_reason sandbox_slow)', () => {
  it('holds the refund for ACQUIRO_SANDBOX_CARD_DELAY too, then refunds it', async () => {
    const started = performance.now();
    const result = await simulator('0.3').refund(slowRefund('RF-slow'));
    const took = performance.now() - started;
    expect(result).toMatchObject({ ok: true, value: { status: 'succeeded' } });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(10_000);
  });

  it('ends at once, unsent, when the call is given up during the hold', async () => {
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(), 100);
    const started = performance.now();
    const result = await simulator('30').refund(slowRefund('RF-slow-aborted', deadline.signal));
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('the sandbox’s slow-settle card (4000000000000424)', () => {
  const approved = async (connector: ReturnType<typeof simulator>) => {
    const request = { ...charge('shopper'), capture: false, card: { ...SLOW, pan: '4000000000000424' } };
    const answer = await connector.authorise(request);
    if (!answer.ok || answer.value.status !== 'approved') throw new Error('not approved');
    return { paymentId: request.paymentId, reference: answer.value.reference, amount: request.amount };
  };

  it('approves at once, then holds its capture and its void for ACQUIRO_SANDBOX_CARD_DELAY; another card’s are answered at once', async () => {
    const connector = simulator('0.3');
    for (const call of ['capture', 'cancel'] as const) {
      const payment = await approved(connector);
      const started = performance.now();
      const result = await (call === 'capture' ? connector.capture({ ...payment, operationId: 'CP-slow' }) : connector.cancel(payment));
      expect(result, call).toMatchObject({ ok: true, value: { status: 'succeeded' } });
      expect(performance.now() - started, call).toBeGreaterThanOrEqual(290);
    }
    const other = await simulator('30').authorise({ ...charge('shopper'), capture: false, card: { ...SLOW, pan: '4111111111111111' } });
    if (!other.ok || other.value.status !== 'approved') throw new Error('not approved');
    const started = performance.now();
    await simulator('30').cancel({ paymentId: 'T-other', reference: other.value.reference, amount: { minor: 1_000, currency: 'USD' } });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('ends a capture or void at once, unsent, when the call is given up during the hold', async () => {
    const connector = simulator('30');
    const payment = await approved(connector);
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(), 100);
    const started = performance.now();
    expect(await connector.cancel({ ...payment, signal: deadline.signal })).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
