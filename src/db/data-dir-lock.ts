// The lock on a PGlite data directory, held in the directory itself, so every process that opens
// the directory sees it, whatever network or PID namespace it runs in and however the directory
// was mounted. Node has no flock, so the lock is a file created exclusively ('wx'); its owner
// renews it (touches its mtime) five times a lease from a worker thread, which a busy event loop
// (PGlite's WebAssembly runs on the main thread) cannot hold up. The lock file states its owner's
// lease (ACQUIRO_DATA_DIR_LEASE, LEASE_MS by default; a lock that states none has LEASE_MS): a
// lock not renewed for its lease belongs to a dead owner and is taken over, whatever lease the
// process taking it over has itself. The owner checks at each beat that the file is still its
// own; if not (it was paused past its lease and someone took over), it stops at once.
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

/** The lease of a lock that states none, and of an owner not given one. */
export const LEASE_MS = 10_000;
/** Beats per lease: a renewal late by four beats still comes in time. */
const BEATS_PER_LEASE = 5;
const POLL_MS = 200;

export const lockPath = (dataDir: string) => join(dataDir, 'acquiro.lock');

export interface HeldLock {
  readonly id: string;
  release(): Promise<void>;
}

interface Seen {
  readonly id: string | undefined;
  readonly mtimeMs: number;
  /** The lease its owner renews it within. */
  readonly leaseMs: number;
}

function look(path: string): Seen | undefined {
  try {
    const { mtimeMs } = statSync(path);
    let id: string | undefined;
    let leaseMs = LEASE_MS;
    try {
      const lock = JSON.parse(readFileSync(path, 'utf8')) as { id?: string; lease_ms?: unknown };
      id = lock.id;
      if (typeof lock.lease_ms === 'number' && lock.lease_ms > 0) leaseMs = lock.lease_ms;
    } catch {
      id = undefined; // being written by its creator this very moment
    }
    return { id, mtimeMs, leaseMs };
  } catch {
    return undefined;
  }
}

function create(path: string, id: string, leaseMs: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    // For people reading the directory; the pid is as this process's PID namespace sees it.
    writeSync(fd, `${JSON.stringify({ id, pid: process.pid, host: hostname(), since: new Date().toISOString(), lease_ms: leaseMs })}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Removes a lock that was seen stale (its id `staleId`), and only that one: it is renamed aside
 * first, and if what was renamed turns out to be a newer lock (created after we looked), it is
 * put back without overwriting anything.
 */
function removeStale(path: string, staleId: string | undefined): void {
  const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else removed it first
  }
  const moved = look(aside);
  if (moved && moved.id !== staleId) {
    try {
      linkSync(aside, path);
    } catch {
      // A third process created a lock meanwhile; the one moved aside notices at its next beat.
    }
  }
  unlinkSync(aside);
}

/**
 * Takes the lock, waiting while a lock is there whose heartbeat might still come: answers null as
 * soon as the heartbeat is seen to advance (a live owner), or takes it over once the lease the
 * lock states has run out since the last beat. `ownerAnswers` short-cuts the wait when the owner
 * is reachable. `leaseMs` is the lease this process's own lock states, and renews within.
 */
export async function acquireLock(dataDir: string, ownerAnswers: () => Promise<boolean>, onLost: () => void, leaseMs = LEASE_MS): Promise<HeldLock | null> {
  const path = lockPath(dataDir);
  const id = randomBytes(16).toString('hex');
  let first: Seen | undefined;
  for (;;) {
    if (create(path, id, leaseMs)) return hold(path, id, onLost, Math.max(1, Math.floor(leaseMs / BEATS_PER_LEASE)));
    const seen = look(path);
    if (!seen) continue; // released between our two looks
    if (first === undefined || seen.id !== first.id) {
      first = seen;
      if (await ownerAnswers()) return null;
    } else if (seen.mtimeMs !== first.mtimeMs) {
      return null; // its owner renews it: alive, wherever it runs
    }
    if (Date.now() - seen.mtimeMs > seen.leaseMs) {
      removeStale(path, seen.id);
      first = undefined;
      continue;
    }
    await sleep(POLL_MS);
  }
}

// The heartbeat, in a thread of its own. CommonJS: an eval'd worker is a script.
const HEARTBEAT = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const beat = () => {
  try {
    const { id } = JSON.parse(fs.readFileSync(workerData.path, 'utf8'));
    if (id !== workerData.id) throw new Error('taken over');
    const now = new Date();
    fs.utimesSync(workerData.path, now, now);
  } catch {
    clearInterval(timer);
    parentPort.postMessage('lost');
  }
};
const timer = setInterval(beat, workerData.every);
`;

function hold(path: string, id: string, onLost: () => void, everyMs: number): HeldLock {
  const worker = new Worker(HEARTBEAT, { eval: true, workerData: { path, id, every: everyMs } });
  worker.unref();
  let released = false;
  worker.on('message', () => {
    if (!released) onLost();
  });
  const removeOwn = () => {
    if (look(path)?.id === id) unlinkSync(path);
  };
  // A process that exits without releasing (process.exit on a fatal error) leaves no lock behind;
  // only one that is killed does, and its lease runs out.
  process.on('exit', removeOwn);
  return {
    id,
    async release() {
      if (released) return;
      released = true;
      process.off('exit', removeOwn);
      await worker.terminate();
      removeOwn();
    },
  };
}
