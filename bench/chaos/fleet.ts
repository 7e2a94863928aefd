// The chaos run's processes: gateways (`acquiro serve --no-worker`, each on a port it keeps across
// restarts) and workers (`acquiro worker`), and the killer that SIGKILLs one of them at a random
// moment and starts it again.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, startWorker, type RunningServer, type RunningWorker } from '../../test/support/processes.ts';
import { freePort } from '../../test/support/processes.ts';

/** What `acquiro worker` logs once its tasks run. */
const WORKER_READY = 'acquiro worker is running';
const WORKER_MIN_LIFE_MS = 8_000;

interface Slot {
  readonly kind: 'gateway' | 'worker';
  readonly index: number;
  /** The running process; undefined while it is (re)starting. */
  process: RunningServer | RunningWorker | undefined;
  /** When its process was started. */
  startedAt: number;
}

export interface KillFigures {
  gateways: number;
  workers: number;
  /** Restarts that failed (the process exited before it was ready, or was not ready in 150 s), and why. */
  failedRestarts: number;
  readonly restartFailures: string[];
  /** Seconds from a gateway's kill until it answered /health again, each time. */
  readonly gatewayRestartSeconds: number[];
}

export class Fleet {
  readonly urls: readonly string[];
  readonly kills: KillFigures = { gateways: 0, workers: 0, failedRestarts: 0, restartFailures: [], gatewayRestartSeconds: [] };
  readonly #slots: Slot[];
  readonly #ports: readonly number[];
  readonly #env: Record<string, string>;
  readonly #logDir: string;
  readonly #restarts = new Set<Promise<void>>();
  /** Aborted by stop(): restarts under way are given up rather than waited for. */
  readonly #stopping = new AbortController();

  private constructor(env: Record<string, string>, ports: readonly number[], workers: number, logDir: string) {
    this.#env = env;
    this.#ports = ports;
    this.#logDir = logDir;
    this.urls = ports.map((port) => `http://127.0.0.1:${port}`);
    this.#slots = [
      ...ports.map((_, index) => ({ kind: 'gateway' as const, index, process: undefined, startedAt: 0 })),
      ...Array.from({ length: workers }, (_, index) => ({ kind: 'worker' as const, index, process: undefined, startedAt: 0 })),
    ];
  }

  static async start(env: Record<string, string>, options: { gateways: number; workers: number; logDir: string }): Promise<Fleet> {
    const ports = await Promise.all(Array.from({ length: options.gateways }, () => freePort()));
    const fleet = new Fleet(env, ports, options.workers, options.logDir);
    await Promise.all(fleet.#slots.map((slot) => fleet.#launch(slot)));
    return fleet;
  }

  async #launch(slot: Slot): Promise<void> {
    slot.startedAt = Date.now();
    if (slot.kind === 'worker') {
      // At info level it says when it runs its tasks (WORKER_READY): only then is it killed again.
      slot.process = startWorker({ ...this.#env, LOG_LEVEL: 'info' });
      return;
    }
    slot.process = await startServer(this.#env, {
      port: this.#ports[slot.index]!,
      acquiroArgs: ['serve', '--no-worker'],
      logFile: join(this.#logDir, `gateway-${slot.index}.log`),
      readyWithinMs: 150_000,
      signal: this.#stopping.signal,
    });
  }

  /** Whether the gateway `index` is up (not being restarted after a kill). */
  isUp(index: number): boolean {
    return this.#slots[index]?.process !== undefined;
  }

  /**
   * SIGKILLs one process at random, then starts it again in the background: a gateway or a
   * worker, with even odds (a gateway takes far longer to restart, so picking among the processes
   * up would kill mostly workers). A gateway is killed only while the other is up, so the load
   * always has somewhere to go; a worker once it runs its tasks, or has been starting for
   * WORKER_MIN_LIFE_MS (restarts without pause would starve the machine's cores, and on a loaded
   * machine a start takes long enough that waiting for every one would make the run very long).
   */
  async killOne(): Promise<void> {
    const killable = (slot: Slot) =>
      slot.process !== undefined &&
      (slot.kind === 'worker'
        ? slot.process.output().includes(WORKER_READY) || Date.now() - slot.startedAt > WORKER_MIN_LIFE_MS
        : this.#slots.some((other) => other.kind === 'gateway' && other !== slot && other.process));
    const kind = Math.random() < 0.5 ? 'gateway' : 'worker';
    const ofKind = this.#slots.filter((slot) => slot.kind === kind && killable(slot));
    const candidates = ofKind.length > 0 ? ofKind : this.#slots.filter(killable);
    const slot = candidates[Math.floor(Math.random() * candidates.length)];
    if (!slot) return;
    const victim = slot.process!;
    slot.process = undefined;
    await victim.stop('SIGKILL');
    this.#keepLog(slot, victim);
    this.kills[slot.kind === 'gateway' ? 'gateways' : 'workers'] += 1;
    const restart = this.#relaunch(slot);
    this.#restarts.add(restart);
    void restart.finally(() => this.#restarts.delete(restart));
  }

  async #relaunch(slot: Slot): Promise<void> {
    const started = Date.now();
    for (let attempt = 0; attempt < 3 && !this.#stopping.signal.aborted; attempt++) {
      try {
        await this.#launch(slot);
        if (slot.kind === 'gateway') this.kills.gatewayRestartSeconds.push((Date.now() - started) / 1000);
        return;
      } catch (error) {
        if (this.#stopping.signal.aborted) return;
        this.kills.failedRestarts += 1;
        this.kills.restartFailures.push(String((error as Error).message).split('\n').slice(0, 3).join(' ').slice(0, 300));
        await sleep(500);
      }
    }
  }

  /** Waits for the restarts under way. */
  async settle(): Promise<void> {
    await Promise.all([...this.#restarts]);
  }

  /** Any process that died without being killed (a crash of its own) is an anomaly. */
  unexpectedExits(): string[] {
    return this.#slots
      .filter((slot) => slot.process !== undefined && slot.process.child.exitCode !== null)
      .map((slot) => `${slot.kind} ${slot.index} exited with ${String(slot.process!.child.exitCode)}: ${slot.process!.output().slice(-500)}`);
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.settle();
    await Promise.all(
      this.#slots.map(async (slot) => {
        const running = slot.process;
        slot.process = undefined;
        await running?.stop('SIGKILL');
        if (running) this.#keepLog(slot, running);
      }),
    );
  }

  /**
   * A worker's output (held in memory while it runs) appended to worker-N.log beside the
   * gateways' logs, once it is killed: what its tasks did is what a run's surprises are read from.
   */
  #keepLog(slot: Slot, process: RunningServer | RunningWorker): void {
    if (slot.kind === 'worker') appendFileSync(join(this.#logDir, `worker-${slot.index}.log`), process.output());
  }
}
