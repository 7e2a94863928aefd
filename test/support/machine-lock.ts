// A lock held across the processes of this machine (test runs, vitest workers): a directory in
// the temporary directory, made by whoever holds it, with its pid inside. A lock whose holder has
// died is taken over.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LockOptions {
  /** How long to wait before giving up. */
  readonly waitMs: number;
  /** Printed once when the lock is held by another process, before waiting. */
  readonly waiting?: string;
  /** Ends the error when the wait runs out. */
  readonly advice?: string;
}

/** Takes the lock `name`, waiting while another process holds it; answers the function that lets it go. */
export async function takeMachineLock(name: string, options: LockOptions): Promise<() => void> {
  const lock = join(tmpdir(), name);
  const deadline = Date.now() + options.waitMs;
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (isStale(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`waited ${Math.round(options.waitMs / 1000)} s for ${lock}${options.advice ? `; ${options.advice}` : ''}`, { cause: error });
      if (!said && options.waiting) console.log(`${options.waiting} (${lock})`);
      said = true;
      await sleep(250);
    }
  }
}

function isStale(lock: string): boolean {
  try {
    const holder = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    process.kill(holder, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM') return false;
    // No pid yet: the holder may be between mkdir and writing it; stale only when old.
    if (code === 'ENOENT') return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 10_000;
    return true;
  }
}
