// The chaos run: gateways and workers as real processes on a PostgreSQL schema of the run's own,
// the actors' mixed load through both gateways, and a killer that SIGKILLs a random process at
// random moments and starts it again. Then the workers drain what is waiting, the sweepers finish
// it, and the database is compared with what clients were told. docs/reliability.md.
import { setTimeout as sleep } from 'node:timers/promises';
import { createMerchant } from '../../src/app/merchants/credentials.ts';
import { runCommand } from '../../src/cli/commands.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps, releaseDeps } from '../../src/deps.ts';
import { createLogger } from '../../src/logging.ts';
import { openTestDatabase } from '../../test/support/gateway.ts';
import { postSigned } from '../../test/support/signed-fetch.ts';
import { tempDir } from '../../test/support/temp.ts';
import { ACTORS, Book, pickActor, type Actor, type ActorContext, type Answered, type Merchants } from './actors.ts';
import { findAnomalies, sweep, total, waitingOnProcessor } from './checks.ts';
import { Fleet, type KillFigures } from './fleet.ts';

export interface ChaosOptions {
  /** Load at least this long. */
  readonly loadMs: number;
  /** And until this many processes were killed. */
  readonly minKills: number;
  /** Mean pause between two kills (each pause is random, from a fifth of it to 1.8 times it). */
  readonly meanKillGapMs: number;
  /** The load's last stretch without kills, so that restarts finish while it still runs. */
  readonly quietMs: number;
  /** Actors running at once. */
  readonly lanes: number;
  /** After the load, how long the workers (no longer killed) may take to finish what waits on the processor. */
  readonly drainMs: number;
  readonly actors?: readonly Actor[];
  readonly print?: (line: string) => void;
}

export interface ChaosFigures {
  readonly seconds: number;
  readonly kills: KillFigures;
  /** Actor runs per actor. */
  readonly operations: Record<string, number>;
  /** HTTP requests sent, and how each ended. */
  readonly requests: number;
  readonly outcomes: Record<string, number>;
  /**
   * The refusals (4xx) answered, by path and code (refusalCode): the load sends well-formed
   * requests, so each is a refusal the run should explain.
   */
  readonly refusals: Record<string, number>;
  /** Requests sent again after a cut connection or a 503. */
  readonly retries: number;
  readonly acknowledged: { payments: number; captures: number; refunds: number; payouts: number; subscriptions: number };
  /** Days the test clock moved, and the subscription charges (cycles after the first) that succeeded and failed. */
  readonly cycles: { clockDays: number; charged: number; declined: number };
  /** Chargebacks the dispute polls recorded, and how many of them the merchant won back. */
  readonly disputes: { readonly opened: number; readonly reversed: number };
  readonly stuckKeys: number;
  /** Items the workers left waiting on the processor, finished by the final sweep. */
  readonly sweptAfterDrain: number;
  readonly anomalies: readonly string[];
  /**
   * Whether the checks, given a forged book on the same database (a payment acknowledged that was
   * never sent, a subscription acknowledged that was never begun, no refund keys for the refunds made), find all three: checks that cannot fail prove nothing.
   */
  readonly checksFire: boolean;
}

/** Attempts of one request before giving up, a quarter of a second apart at least. */
const ATTEMPTS = 40;
const REQUEST_TIMEOUT_MS = 30_000;

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const print = options.print ?? (() => {});
  const started = Date.now();
  const testDb = await openTestDatabase(4, 'postgres');
  const env = {
    ...testDb.env,
    HOST: '127.0.0.1',
    ACQUIRO_DB_POOL_SIZE: '5',
    // One load generator on one address: no per-address or fair-share limit in the way.
    ACQUIRO_BUSY_IN_FLIGHT: '100000',
    ACQUIRO_MAX_CONNECTIONS_PER_CLIENT: '100000',
  };
  // The processes' logs: kept after `npm run chaos` for reading; removed with the test run's directory in `npm test`.
  const logDir = tempDir('acquiro-chaos-');
  // This process's own handle on the database: the migrations (before the processes start, so
  // none waits for another's), the merchants, the final sweep and the ledger check.
  const deps = await createDeps({ config: loadConfig(env), database: testDb.database, log: createLogger('silent') });
  const limits = { rateLimitPerSecond: 1_000_000 };
  const merchants: Merchants = {
    auto: await createMerchant(deps, 'Chaos auto', limits),
    manual: await createMerchant(deps, 'Chaos manual', { ...limits, captureMode: 'manual' }),
  };
  const actors = options.actors ?? ACTORS;
  for (const actor of actors) await actor.prepare?.(deps, merchants);
  const fleet = await Fleet.start(env, { gateways: 2, workers: 2, logDir });
  try {
    print(`fleet up at ${elapsed(started)} s; logs in ${logDir}`);
    const book = new Book();
    const outcomes: Record<string, number> = {};
    let requests = 0;
    let retries = 0;
    const tally = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);
    const refusals: Record<string, number> = {};

    const ctx: ActorContext = {
      deps,
      loadMs: options.loadMs,
      merchants,
      book,
      async call(merchant, path, fields, callOptions = {}): Promise<Answered | undefined> {
        let gateway = callOptions.gateway ?? Math.floor(Math.random() * fleet.urls.length);
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
          if (attempt > 0) {
            retries += 1;
            gateway = (gateway + 1) % fleet.urls.length;
            await sleep(250);
          }
          // A gateway being restarted refuses connections: try the other one.
          if (!fleet.isUp(gateway)) gateway = (gateway + 1) % fleet.urls.length;
          requests += 1;
          const headers = callOptions.key ? { 'idempotency-key': callOptions.key } : undefined;
          const sent = await postSigned(fleet.urls[gateway]!, path, merchant, fields, { ...(headers ? { headers } : {}), timeoutMs: REQUEST_TIMEOUT_MS });
          if (sent.kind !== 'answer') {
            tally(sent.kind);
            if (sent.kind === 'timeout') book.anomalies.push(`${path} got no answer in ${REQUEST_TIMEOUT_MS / 1000} s`);
            continue;
          }
          tally(String(sent.status));
          if (sent.status >= 400 && sent.status < 500) {
            const why = `${path} ${sent.status} ${refusalCode(sent.body)}`;
            refusals[why] = (refusals[why] ?? 0) + 1;
          }
          if (sent.status >= 500 && sent.status !== 503) book.anomalies.push(`${path} answered ${sent.status}: ${sent.raw.slice(0, 200)}`);
          if (sent.status === 503) continue;
          return { status: sent.status, body: sent.body };
        }
        return undefined;
      },
    };

    const operations: Record<string, number> = {};
    let stopping = false;
    const lanes = Array.from({ length: options.lanes }, async () => {
      while (!stopping) {
        const actor = pickActor(actors);
        await actor.act(ctx);
        operations[actor.name] = (operations[actor.name] ?? 0) + 1;
      }
    });
    const killed = () => fleet.kills.gateways + fleet.kills.workers;
    const loadStarted = Date.now();
    let lastReport = loadStarted;
    while (Date.now() - loadStarted < options.loadMs - options.quietMs || killed() < options.minKills) {
      await sleep(options.meanKillGapMs * (0.2 + Math.random() * 1.6));
      await fleet.killOne();
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        print(`${killed()} kills (${fleet.kills.gateways} gateways), ${requests} requests, ${book.anomalies.length} anomalies so far`);
      }
    }
    // The quiet stretch: the load goes on while the last restarts finish.
    await sleep(Math.max(0, loadStarted + options.loadMs - Date.now()));
    stopping = true;
    print(`load stopped at ${elapsed(started)} s`);
    await Promise.all(lanes);
    // With time to drain, the workers killed last must be back to do it; without, nothing waits.
    if (options.drainMs > 0) await fleet.settle();
    print(`actors done at ${elapsed(started)} s`);

    // The workers, no longer killed, finish what waits on the processor; the sweep does the rest.
    const drainUntil = Date.now() + options.drainMs;
    while (Date.now() < drainUntil) {
      if (total(await waitingOnProcessor(testDb.database, deps.clock.now())) === 0) break;
      await sleep(1_000);
    }
    const exits = fleet.unexpectedExits();
    await fleet.stop();
    print(`drained at ${elapsed(started)} s`);
    const sweptAfterDrain = await sweep(deps);
    print(`swept at ${elapsed(started)} s`);
    const anomalies = [...book.anomalies, ...exits, ...(await findAnomalies(testDb.database, book, deps.clock.now()))];
    const forged = new Book();
    forged.payments.set('ORD-never-sent', 'T-never-sent');
    forged.subscriptions.set('RC-never-begun', 'ORD-never-sent');
    const caught = await findAnomalies(testDb.database, forged, deps.clock.now());
    const checksFire = caught.some((a) => a.includes('ORD-never-sent')) && caught.some((a) => a.includes('a double refund')) && caught.some((a) => a.includes('RC-never-begun'));
    const [charges] = await testDb.database.query<{ charged: number; declined: number }>(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS charged, count(*) FILTER (WHERE status = 'failed')::int AS declined FROM subscription_charges`,
    );
    const [disputes] = await testDb.database.query<{ opened: number; reversed: number }>(
      `SELECT count(*)::int AS opened, count(*) FILTER (WHERE status = 'reversed')::int AS reversed FROM disputes`,
    );
    const ledger = await runCommand(['ledger', 'check'], deps);
    if (ledger.exitCode !== 0) anomalies.push(`acquiro ledger check: exit ${ledger.exitCode}\n${ledger.stdout}${ledger.stderr}`);

    return {
      seconds: Math.round((Date.now() - started) / 1000),
      kills: fleet.kills,
      operations,
      requests,
      outcomes,
      refusals,
      retries,
      acknowledged: { payments: book.payments.size, captures: book.captures.size, refunds: book.refunds.size, payouts: book.payouts.size, subscriptions: book.subscriptions.size },
      cycles: { clockDays: book.clockDays, ...charges! },
      disputes: disputes!,
      stuckKeys: book.stuckKeys,
      sweptAfterDrain,
      anomalies,
      checksFire,
    };
  } finally {
    await fleet.stop();
    await releaseDeps(deps);
    await testDb.drop();
  }
}

/** The code a refusal names: its `result_info`'s, or a payout answer's `return_message`'s (`4002:…` → 4002). */
function refusalCode(body: Record<string, unknown> | undefined): string {
  const text = [body?.result_info, body?.return_message].find((value) => typeof value === 'string') as string | undefined;
  return text?.split(':', 1)[0] || 'no code';
}

const elapsed = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The figures as a few lines of text. */
export function describeFigures(figures: ChaosFigures): string {
  const { kills } = figures;
  return [
    `chaos: ${figures.seconds} s, ${kills.gateways + kills.workers} SIGKILLs (${kills.gateways} gateways, ${kills.workers} workers, ${kills.failedRestarts} failed restarts)`,
    ...(kills.gatewayRestartSeconds.length === 0
      ? []
      : [`gateway back after a kill in ${median(kills.gatewayRestartSeconds).toFixed(1)} s (median), ${Math.max(...kills.gatewayRestartSeconds).toFixed(1)} s at most`]),
    ...kills.restartFailures.map((why) => `  restart failed: ${why}`),
    `operations: ${Object.entries(figures.operations).map(([name, n]) => `${name} ${n}`).join(', ')}`,
    `requests: ${figures.requests} (${Object.entries(figures.outcomes).map(([what, n]) => `${what} ${n}`).join(', ')}), ${figures.retries} sent again`,
    ...Object.entries(figures.refusals).map(([why, n]) => `  refused: ${why} (${n})`),
    `acknowledged: ${figures.acknowledged.payments} payments, ${figures.acknowledged.captures} captures, ${figures.acknowledged.refunds} refunds, ` +
      `${figures.acknowledged.payouts} payouts, ${figures.acknowledged.subscriptions} subscriptions; ` +
      `${figures.stuckKeys} Idempotency-Keys answered 409 (4017)`,
    `subscription cycles: clock moved ${figures.cycles.clockDays} days, ${figures.cycles.charged} charges succeeded, ${figures.cycles.declined} failed (retried: dunning)`,
    `chargebacks: ${figures.disputes.opened} recorded, ${figures.disputes.reversed} of them reversed`,
    `left waiting for the final sweep: ${figures.sweptAfterDrain}`,
    `anomalies: ${figures.anomalies.length}`,
    ...figures.anomalies.map((a) => `  - ${a}`),
  ].join('\n');
}
