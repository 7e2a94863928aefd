// The lock on an embedded data directory, in this process, on real files: the lock states its
// owner's lease and is renewed within it; another process takes over a lock not renewed once the
// lease the lock states has run out (LEASE_MS when it states none), whatever lease the taker has
// itself; a renewed lock is never taken. Lock files are written here by hand, their last renewal
// set back in time, so the waits stay short. test/cli/data-dir-lock.test.ts runs real processes.
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import { acquireLock, LEASE_MS, lockPath, type HeldLock } from './data-dir-lock.ts';

const held: HeldLock[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
});

const nobodyAnswers = async () => false;
const noop = () => {};

function directory(): string {
  return tempDir('acquiro-lock-');
}

/** A lock left by an owner elsewhere, last renewed `ago` ms before now. */
function foreignLock(dir: string, ago: number, leaseMs?: number): void {
  writeFileSync(lockPath(dir), `${JSON.stringify({ id: 'elsewhere', pid: 1, host: 'another-machine', ...(leaseMs ? { lease_ms: leaseMs } : {}) })}\n`, { mode: 0o600 });
  const renewed = new Date(Date.now() - ago);
  utimesSync(lockPath(dir), renewed, renewed);
}

/** Takes the lock as a process whose own lease is `ownLeaseMs`; answers how long that took. */
async function takeOver(dir: string, ownLeaseMs: number): Promise<number> {
  const started = performance.now();
  const lock = await acquireLock(dir, nobodyAnswers, noop, ownLeaseMs);
  expect(lock).not.toBeNull();
  held.push(lock!);
  expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).id).toBe(lock!.id);
  return performance.now() - started;
}

describe('the data directory lock', () => {
  it('states its owner’s lease in the lock file, and renews it', async () => {
    const dir = directory();
    const lock = await acquireLock(dir, nobodyAnswers, noop, 1_000);
    held.push(lock!);
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8'))).toMatchObject({ id: lock!.id, lease_ms: 1_000 });
    const first = statSync(lockPath(dir)).mtimeMs;
    const deadline = Date.now() + 30_000;
    while (statSync(lockPath(dir)).mtimeMs === first && Date.now() < deadline) await sleep(50);
    expect(statSync(lockPath(dir)).mtimeMs).toBeGreaterThan(first);
  });

  it('waits out the lease the lock states, longer than the taker’s own and than the default', async () => {
    const dir = directory();
    // Stated 20 s, last renewed 19 s ago: the taker's 100 ms, or LEASE_MS, would take it at once.
    foreignLock(dir, 19_000, 20_000);
    expect(await takeOver(dir, 100)).toBeGreaterThanOrEqual(900);
  });

  it('takes over a lock stating a lease shorter than the taker’s own once that lease has run out', async () => {
    const dir = directory();
    foreignLock(dir, 0, 300);
    const took = await takeOver(dir, LEASE_MS);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(LEASE_MS);
  });

  it('gives a lock that states no lease LEASE_MS, whatever the taker’s own', async () => {
    const dir = directory();
    foreignLock(dir, LEASE_MS - 1_000);
    expect(await takeOver(dir, 100)).toBeGreaterThanOrEqual(900);
  });

  it('never takes a lock that is being renewed, however short the lease it states', async () => {
    const dir = directory();
    foreignLock(dir, 0, 1_000);
    const renew = setInterval(() => {
      const now = new Date();
      utimesSync(lockPath(dir), now, now);
    }, 100);
    try {
      expect(await acquireLock(dir, nobodyAnswers, noop, 1_000)).toBeNull();
    } finally {
      clearInterval(renew);
    }
    expect(JSON.parse(readFileSync(lockPath(dir), 'utf8')).id).toBe('elsewhere');
  });
});
