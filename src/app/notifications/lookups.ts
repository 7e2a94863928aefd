// The system resolver (getaddrinfo) runs on libuv's thread pool, 4 threads shared with file and
// crypto work, and a lookup cannot be cancelled: an attempt that stops waiting leaves its thread
// busy until the resolver gives up. So a process keeps at most MAX_LOOKUPS names resolving at once,
// and one account at most one of them: a merchant whose DNS hangs holds one lookup, never the pool
// nor every lookup. The others wait in turn, inside their attempt's deadline.

/** Below the thread pool's 4: file and crypto work always keep threads of their own. */
export const MAX_LOOKUPS = 2;
const PER_KEY = 1;

interface Waiter {
  readonly key: string;
  readonly start: () => void;
}

export class LookupGate {
  private readonly running = new Map<string, number>();
  private total = 0;
  private readonly queue: Waiter[] = [];
  private readonly max: number;

  constructor(max = MAX_LOOKUPS) {
    this.max = max;
  }

  /**
   * Runs `lookup` when a slot is free for `key`. The slot is held until the lookup itself settles,
   * not until its caller stops waiting: that is when the resolver's thread is free again. A
   * caller aborted (its deadline) while still waiting leaves the queue and starts nothing.
   */
  run<T>(key: string, lookup: () => Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        key,
        start: () => {
          signal.removeEventListener('abort', leave);
          this.take(key);
          let work: Promise<T>;
          try {
            work = lookup();
          } catch (error) {
            work = Promise.reject(error);
          }
          work.then(resolve, reject).finally(() => this.release(key));
        },
      };
      const leave = () => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', leave, { once: true });
      this.queue.push(waiter);
      this.next();
    });
  }

  private take(key: string): void {
    this.total += 1;
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
  }

  private release(key: string): void {
    this.total -= 1;
    const left = (this.running.get(key) ?? 1) - 1;
    if (left > 0) this.running.set(key, left);
    else this.running.delete(key);
    this.next();
  }

  /** Starts the first waiters whose key has room, while the process has. */
  private next(): void {
    while (this.total < this.max) {
      const at = this.queue.findIndex((waiter) => (this.running.get(waiter.key) ?? 0) < PER_KEY);
      if (at < 0) return;
      const [waiter] = this.queue.splice(at, 1);
      waiter!.start();
    }
  }
}

/** The process's gate: every notification attempt and portal URL check resolves through it. */
export const processLookups = new LookupGate();
