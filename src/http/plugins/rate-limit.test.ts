import { describe, expect, it } from 'vitest';
import { FairShare, RateLimiter } from './rate-limit.ts';

describe('RateLimiter', () => {
  it('allows `limit` at once and refills at `limit` per second, with no double burst at a window edge', () => {
    const limiter = new RateLimiter();
    const taken = (at: number, n: number) => Array.from({ length: n }, () => limiter.take('A', 10, at)).filter((v) => v.allowed).length;
    expect(taken(0, 15)).toBe(10);
    // A fixed window would allow 10 more just after a second boundary; the bucket only what refilled.
    expect(taken(1_001, 15)).toBe(10);
    expect(taken(1_101, 15)).toBe(1);
    expect(limiter.take('A', 10, 1_101).retryAfter).toBeGreaterThanOrEqual(1);
  });

  it('takes a smaller part when the limit is shared by more gateways', () => {
    const limiter = new RateLimiter();
    expect(Array.from({ length: 10 }, () => limiter.take('A', 10 / 2, 0)).filter((v) => v.allowed).length).toBe(5);
  });
});

describe('FairShare', () => {
  /** A gateway kept busy (more requests pending than `busy`), their accounts known. */
  const busyShare = () => {
    const share = new FairShare(1);
    for (let i = 0; i < 10; i++) share.identified(share.arrive(0));
    return share;
  };

  it('counts an account as competing while a request that may be its next is not identified yet', () => {
    const share = busyShare();
    share.admit('B', 0);
    share.done('B', 100);
    const next = share.arrive(150); // B's next request, its body still being read at 400 ms
    const admitted = Array.from({ length: 20 }, (_, i) => share.admit('A', 400 + i)).filter(Boolean).length;
    expect(admitted).toBeLessThanOrEqual(6);
    // Once it is identified (B's or not), B, answered 300 ms before, no longer holds A back.
    share.identified(next);
    expect(share.admit('A', 420)).toBe(true);
  });

  it('counts an account between two requests as competing: answered a moment ago', () => {
    const share = busyShare();
    share.admit('B', 0);
    share.done('B', 200); // answered at 200 ms; its next request is on its way
    const admitted = Array.from({ length: 20 }, (_, i) => share.admit('A', 250 + i)).filter(Boolean).length;
    expect(admitted).toBeLessThanOrEqual(6);
  });

  it('refuses an account past the average of the accounts competing with it now', () => {
    const share = busyShare();
    share.admit('B', 0); // B keeps a request in flight: it competes
    // FLOOR (5) and one more, counted as they decay: then A has had far more than B.
    const admitted = Array.from({ length: 20 }, (_, i) => share.admit('A', i)).filter(Boolean).length;
    expect(admitted).toBeGreaterThanOrEqual(5);
    expect(admitted).toBeLessThanOrEqual(6);
  });

  it('does not refuse an account that bursts right after another one stopped', () => {
    const share = busyShare();
    for (let i = 0; i < 8; i++) {
      share.admit('B', i);
      share.done('B', i);
    }
    // B has stopped (nothing in flight, its last request 300 ms ago): A is alone and takes all.
    const admitted = Array.from({ length: 20 }, (_, i) => share.admit('A', 308 + i)).filter(Boolean).length;
    expect(admitted).toBe(20);
  });

  it('never refuses an account alone, nor anyone while the gateway is not busy', () => {
    const alone = busyShare();
    expect(Array.from({ length: 50 }, (_, i) => alone.admit('A', i)).every(Boolean)).toBe(true);
    const quiet = new FairShare(100);
    quiet.admit('B', 0);
    expect(Array.from({ length: 50 }, (_, i) => quiet.admit('A', i)).every(Boolean)).toBe(true);
  });
});
