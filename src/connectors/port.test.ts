import { describe, expect, it } from 'vitest';
import { callLimitOf, DEFAULT_MAX_CALLS_IN_FLIGHT, ok, withDeadline, type Connector, type Result } from './port.ts';

describe('withDeadline', () => {
  it('answers what the call answers in time', async () => {
    expect(await withDeadline(async () => ok(1), 1_000)).toEqual({ ok: true, value: 1 });
  });

  it('turns an overrun into a timeout and aborts the call', async () => {
    let aborted = false;
    const result = await withDeadline(
      (signal) =>
        new Promise(() => {
          signal.addEventListener('abort', () => (aborted = true));
        }),
      50,
    );
    expect(result).toEqual({ ok: false, error: { kind: 'timeout', message: 'no answer within 50 ms' } });
    expect(aborted).toBe(true);
  });

  it('turns a throw into a network error', async () => {
    expect(await withDeadline(() => Promise.reject(new Error('reset')), 1_000)).toMatchObject({ ok: false, error: { kind: 'network' } });
    expect(
      await withDeadline(() => {
        throw new Error('thrown before any promise');
      }, 1_000),
    ).toMatchObject({ ok: false, error: { kind: 'network' } });
  });

  it("stops waiting at the deadline, and tells when the connector's own promise settles, however late", async () => {
    let finish: (() => void) | undefined;
    let settledAt: 'before answer' | 'later' | undefined;
    let answered = false;
    const result = await withDeadline(
      () => new Promise<Result<string>>((resolve) => (finish = () => resolve(ok('late')))),
      30,
      () => (settledAt = answered ? 'later' : 'before answer'),
    );
    answered = true;
    expect(result).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(settledAt).toBeUndefined();
    finish!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settledAt).toBe('later');
    // In time: settled before the answer is handed back.
    let inTime = false;
    await withDeadline(async () => ok(1), 1_000, () => (inTime = true));
    expect(inTime).toBe(true);
  });
});

describe('callLimitOf', () => {
  const stating = (maxCallsInFlight?: number) => ({ name: 'x', ...(maxCallsInFlight === undefined ? {} : { maxCallsInFlight }) }) as Connector;

  it("answers the connector's own limit, or the default when it states none or none usable", () => {
    expect(callLimitOf(stating(3))).toBe(3);
    expect(DEFAULT_MAX_CALLS_IN_FLIGHT).toBe(8);
    for (const connector of [stating(), stating(0), stating(2.5), stating(Number.NaN), undefined]) expect(callLimitOf(connector)).toBe(DEFAULT_MAX_CALLS_IN_FLIGHT);
  });
});
