// Temporary files of a test run: every directory a test makes (data directories of the embedded
// database, clusters, PgBouncer's files, packed packages) goes under one directory per `npm test`,
// which the run removes when it ends. Vitest's workers run no exit handler, so the removal is the
// teardown of this global setup, in vitest's own process. A run killed before its teardown leaves
// its directory; the next run removes it (its name holds the run's process id, no longer alive).
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUN_DIR = 'ACQUIRO_TEST_TMP';
const PREFIX = 'acquiro-run-';

/** A new directory under this run's (the system's temporary directory outside a test run: the bench). */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(process.env[RUN_DIR] ?? tmpdir(), prefix));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length).split('-')[0] : NaN);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(tmpdir(), name), { recursive: true, force: true, maxRetries: 3 });
  }
}

export default function setup(): (() => void) | undefined {
  if (process.env[RUN_DIR]) return undefined; // set by the run that started this one: theirs to remove
  removeLeftovers();
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
  // Servers the tests start as other users (PostgreSQL as postgres, PgBouncer as nobody) reach
  // their own directories below it.
  chmodSync(dir, 0o711);
  process.env[RUN_DIR] = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    delete process.env[RUN_DIR];
  };
}
