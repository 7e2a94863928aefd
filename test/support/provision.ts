// Debian packages a test project needs, installed by the test run itself: when one is missing,
// running as root on a machine with apt-get, the project's global setup installs it; otherwise it
// stops the run at once with the command to run. Parallel runs on one machine install once: the
// first takes a lock, the others wait for it and find everything in place.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { takeMachineLock } from './machine-lock.ts';

const LOCK_NAME = 'acquiro-test-provision.lock';
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

/** Holds the machine's provisioning lock while `work` runs. */
async function withLock<T>(work: () => T): Promise<T> {
  const release = await takeMachineLock(LOCK_NAME, {
    waitMs: LOCK_WAIT_MS,
    waiting: 'another test run is installing packages; waiting for it',
    advice: 'remove it if no test run is installing packages',
  });
  try {
    return work();
  } finally {
    release();
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
