// Debian packages a test project needs, installed by the test run itself: when one is missing,
// running as root on a machine with apt-get, the project's global setup installs it; otherwise it
// stops the run at once with the command to run. Parallel runs on one machine install once: the
// first takes a lock, the others wait for it and find everything in place.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK = join(tmpdir(), 'acquiro-test-provision.lock');
const LOCK_WAIT_MS = 15 * 60_000;

/** What a project lacks on this machine, as Debian packages and as words for a person. */
export interface Missing {
  readonly packages: string[];
  readonly what: string[];
}

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function apt(args: string[]): void {
  const run = spawnSync('apt-get', ['-q', '-o', 'DPkg::Lock::Timeout=600', ...args], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (run.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal})`);
}

/** Holds a lock directory while `work` runs; a lock whose holder has died is taken over. */
async function withLock<T>(work: () => T): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let said = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockIsStale()) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`waited ${LOCK_WAIT_MS / 60_000} min for ${LOCK}; remove it if no test run is installing packages`, { cause: error });
      }
      if (!said) console.log(`another test run is installing packages; waiting for it (${LOCK})`);
      said = true;
      await sleep(1_000);
    }
  }
  try {
    return work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function lockIsStale(): boolean {
  try {
    const holder = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
    process.kill(holder, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPERM') return false;
    // No pid yet: the holder may be between mkdir and writing it; stale only when old.
    if (code === 'ENOENT') return Date.now() - statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 10_000;
    return true;
  }
}

export function installCommand(packages: readonly string[]): string {
  return `sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`;
}

/**
 * Installs what `missing()` names, for the tests of `project` (the words that start its messages);
 * `advice` ends the refusal when it cannot install.
 */
export async function provision(project: string, missing: () => Missing, advice = 'then run npm test again.'): Promise<void> {
  const before = missing();
  if (before.packages.length === 0) return;
  const canInstall = process.getuid?.() === 0 && onPath('apt-get');
  if (!canInstall) {
    throw new Error(`The ${project} tests need ${before.what.join(' and ')}. Install with:\n\n  ${installCommand(before.packages)}\n\n${advice}`);
  }
  await withLock(() => {
    // Another run may have installed them while this one waited for the lock.
    const now = missing();
    if (now.packages.length === 0) return;
    const started = Date.now();
    console.log(`${project}: installing ${now.packages.join(' ')} with apt-get (${now.what.join(', ')} missing)`);
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', ...now.packages]);
    console.log(`${project}: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  });
  const after = missing();
  if (after.packages.length > 0) throw new Error(`still missing after apt-get: ${after.what.join(' and ')}. Install with:\n\n  ${installCommand(after.packages)}`);
}
