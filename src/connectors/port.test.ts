import { describe, expect, it } from 'vitest';
import { ok, withDeadline } from './port.ts';

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
  });
});
