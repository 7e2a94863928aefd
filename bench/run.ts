// npm run bench: the gateway's authorisations over HTTP beside the same SQL sent raw to the same
// engine in the same run, on PostgreSQL (default) or PGlite (BENCH_DATABASE_URL=pglite); raw two
// ways, the statements coalesced as the gateway sends them (the goals' yardstick) and one
// authorisation's statements alone (as the goals were first measured). Prints
// rates, the CPU per authorisation of the server, the load generator and PostgreSQL, latency, the
// server's event-loop delay and peak RSS, the batch operations' latency, a two-process phase
// (PostgreSQL) with its scaling factor, and each goal as the ratio this run measured. Measures;
// never fails on a figure.
//
// This machine drifts by a fifth from one minute to the next, so HTTP and raw SQL are measured in
// alternating phases over several rounds and compared by their medians. Latency at half the peak
// rate is measured with requests sent at even intervals (open loop), in alternating rounds as
// well: a closed loop or a bursty generator would measure its own queue instead of the gateway.
//
//   BENCH_DATABASE_URL  PostgreSQL to use (default postgresql://postgres@127.0.0.1:5432/test; the
//                       bench works in a schema of its own and drops it afterwards), or "pglite"
//   BENCH_SECONDS       length of each measured phase (default 6)
//   BENCH_ROUNDS        alternating HTTP/raw rounds (default 3)
//   BENCH_CONNECTIONS   concurrent HTTP connections and SQL clients (default 32)
//   BENCH_ONLY          "lifecycle": only the refund batch and query phases (default: every phase)
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../src/db/client.ts';
import { acquiro } from '../test/support/processes.ts';
import { lifecycleLatencies, type LifecycleFigures } from './lifecycle.ts';
import { meanWaits, perStatement, rawHotPath, serverHotPath, type HotPathCounts } from './hot-path.ts';
import { authorise, bodies, cpuSeconds, evenLatency, freshConnections, median, MOST_PER_SECOND, ownEventLoopDelay, peakRate } from './load.ts';
import { rawAuthorisation, type RawSending } from './raw-authorise.ts';
import { startBenchTarget, startSecondServer, type BenchTarget, type Ids } from './target.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== 'lifecycle') throw new Error(`BENCH_ONLY=${ONLY}: only "lifecycle" is known`);

const log = (line: string) => process.stdout.write(`${line}\n`);
const ms = (n: number) => n.toFixed(1);
const ms2 = (n: number) => n.toFixed(2);

function peakRssMb(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** CPU seconds used so far by every PostgreSQL process of this machine (its backends and helpers). */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += cpuSeconds(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** CPU milliseconds per authorisation: of one process (the server, or this one), of this process, and of PostgreSQL's. */
interface CpuPer {
  readonly own: number;
  readonly self: number;
  readonly database: number;
}

/**
 * Starts counting CPU now: of process `pid` (this process when absent), of this process (to the
 * microsecond) and of PostgreSQL's. The answer, given how many authorisations were done
 * meanwhile, is each per authorisation.
 */
function cpuMeter(pid?: number): (done: number) => CpuPer {
  const other = pid === undefined ? undefined : cpuSeconds(pid);
  const started = process.cpuUsage();
  const database = postgresCpuSeconds();
  return (done) => {
    const used = process.cpuUsage(started);
    const self = (used.user + used.system) / 1000 / done;
    const own = other === undefined ? self : ((cpuSeconds(pid!) - other) * 1000) / done;
    return { own, self, database: ((postgresCpuSeconds() - database) * 1000) / done };
  };
}

/** Two gateways on one database, each driven by half the connections at once: their sum. */
async function pairRate(urls: readonly [string, string], ids: Ids, secret: string): Promise<number> {
  const half = Math.max(1, Math.round(CONNECTIONS / 2));
  const rates = await Promise.all(urls.map((url) => peakRate(url, bodies(ids, secret, Math.round((SECONDS * MOST_PER_SECOND) / 2)), SECONDS, half)));
  return rates[0]! + rates[1]!;
}

/**
 * The yardsticks, each the same statements' texts and parameters as the gateway's: the goal is
 * measured against what the gateway sends (concurrent authorisations' statements coalesced, as the
 * gateway does); one authorisation's statements alone are printed beside it, as the issue first
 * measured them (docs/performance.md, "Coalesced statements").
 */
const SENDINGS: readonly RawSending[] = ['coalesced', 'alone'];
const RAW_NAMES: Record<RawSending, string> = { coalesced: "(the gateway's statements)", alone: "(one authorisation's statements alone)" };

class RawFigures {
  readonly rates: number[] = [];
  readonly clientCpu: number[] = [];
  readonly databaseCpu: number[] = [];
  /** Authorisations' claims and outcomes per statement sent (coalesced only). */
  readonly shared: number[] = [];
  add(rate: number, clientCpu: number, databaseCpu: number): void {
    this.rates.push(rate);
    this.clientCpu.push(clientCpu);
    this.databaseCpu.push(databaseCpu);
  }
}

/**
 * One side's half-rate rounds: each round's p50, p99 and the load generator's own delay p99, and
 * the CPU per authorisation of the side's own process (the server, or the raw client) and of
 * PostgreSQL's; and their medians.
 */
class HalfRate {
  readonly p50s: number[] = [];
  readonly p99s: number[] = [];
  readonly generatorDelays: number[] = [];
  readonly ownCpu: number[] = [];
  readonly databaseCpu: number[] = [];
  add(latency: { p50: number; p99: number }, generatorDelay: number, cpu: CpuPer): void {
    this.p50s.push(latency.p50);
    this.p99s.push(latency.p99);
    this.generatorDelays.push(generatorDelay);
    this.ownCpu.push(cpu.own);
    this.databaseCpu.push(cpu.database);
  }
  /** The coalesced statements' figures over the phase (src/db/coalesce.ts): claims and outcomes per statement, and their mean waits. */
  readonly shared: number[] = [];
  readonly toGo: number[] = [];
  readonly toAnswer: number[] = [];
  addStatements(before: HotPathCounts, after: HotPathCounts): void {
    const waits = meanWaits(before, after);
    this.shared.push(perStatement(before, after));
    this.toGo.push(waits.toGo);
    this.toAnswer.push(waits.toAnswer);
  }
  medians(): { p50: number; p99: number; generatorDelay: number; ownCpu: number; databaseCpu: number } {
    return {
      p50: median(this.p50s),
      p99: median(this.p99s),
      generatorDelay: median(this.generatorDelays),
      ownCpu: median(this.ownCpu),
      databaseCpu: median(this.databaseCpu),
    };
  }
  /** The statements' medians over the rounds, as a line's part. */
  statements(): string {
    return `${ms2(median(this.toGo))} ms to go, ${ms2(median(this.toAnswer))} ms to the answer, ${ms(median(this.shared))} a statement`;
  }
}

async function rawRate(database: Database, ids: Ids, sending: RawSending, seconds = SECONDS): Promise<number> {
  let done = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await rawAuthorisation(database, ids.account_id, ids.merchant_id, sending);
        done += 1;
      }
    }),
  );
  return done / seconds;
}

/** The server's event-loop delay over `phase` (its probe writes the histogram on each SIGUSR2). */
async function eventLoopDuring<T>(target: BenchTarget, phase: () => Promise<T>): Promise<{ result: T; delay: string }> {
  target.server.child.kill('SIGUSR2');
  const result = await phase();
  target.server.child.kill('SIGUSR2');
  await sleep(200); // the line reaches the log file
  const lines = readFileSync(target.logFile, 'utf8').match(/event-loop-delay .*/g) ?? [];
  return { result, delay: lines.at(-1)?.replace('event-loop-delay ', '') ?? 'not measured' };
}

/** Two processes on one PostgreSQL, alternating with one in the same run: the scaling factor. */
async function twoProcesses(target: BenchTarget): Promise<number | undefined> {
  if (target.kind === 'pglite') {
    log('  two gateways: not on PGlite (one process owns its data directory)');
    return undefined;
  }
  const { ids, secret } = target;
  const second = await startSecondServer(target);
  const one: number[] = [];
  const two: number[] = [];
  try {
    await peakRate(second.url, bodies(ids, secret, 2 * MOST_PER_SECOND), 2, CONNECTIONS); // warm the second process
    for (let round = 1; round <= ROUNDS; round++) {
      await target.betweenPhases();
      one.push(await peakRate(target.url, bodies(ids, secret, SECONDS * MOST_PER_SECOND), SECONDS, CONNECTIONS));
      await target.betweenPhases();
      two.push(await pairRate([target.url, second.url], ids, secret));
      log(`  round ${round}: one gateway ${one.at(-1)!.toFixed(0)}/s, two gateways ${two.at(-1)!.toFixed(0)}/s`);
    }
  } finally {
    await second.stop();
  }
  const scaling = median(two) / median(one);
  log(`  two gateways on one PostgreSQL: ${median(two).toFixed(0)}/s, scaling factor ${scaling.toFixed(2)} (the load generator shares the cores)`);
  return scaling;
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');

/** The batch phases: a refund batch of 50 and a query of 100 orders, one at a time. */
async function lifecyclePhase(target: BenchTarget): Promise<LifecycleFigures> {
  const { url, ids, secret } = target;
  const ips = await acquiro(['ips', 'add', '--merchant-id', ids.merchant_id, '--account-id', ids.account_id, '--cidr', '127.0.0.1'], target.env);
  if (ips.code !== 0) throw new Error(`acquiro ips add failed: ${ips.stderr}`);
  await target.betweenPhases();
  freshConnections();
  const { result: lifecycle, p99, max } = await ownEventLoopDelay(() => lifecycleLatencies(url, { ...ids, secret }, undefined, target.betweenPhases));
  log(`  refund batch of 50, one at a time: p50 ${ms(lifecycle.refund.p50)} ms, p99 ${ms(lifecycle.refund.p99)} ms (${lifecycle.refund.rounds} batches)`);
  log(`  query of 100 orders, one at a time: p50 ${ms(lifecycle.query.p50)} ms, p99 ${ms(lifecycle.query.p99)} ms (${lifecycle.query.rounds} queries)`);
  log(`    the load generator's own event-loop delay meanwhile: p99 ${ms(p99)} ms, max ${ms(max)} ms`);
  return lifecycle;
}

function logLifecycleGoals(lifecycle: LifecycleFigures): void {
  log(`    refund batch p99 ${ms(lifecycle.refund.p99)} ms (goal <= 50 ms): ${verdict(lifecycle.refund.p99 <= 50)}`);
  log(`    query p99 ${ms(lifecycle.query.p99)} ms (goal <= 20 ms): ${verdict(lifecycle.query.p99 <= 20)}`);
}

async function main() {
  const target = await startBenchTarget({ probe: true, connections: CONNECTIONS });
  try {
    const { url, ids, secret, raw } = target;
    const engine = target.kind === 'pglite' ? 'PGlite' : 'PostgreSQL';
    log(`acquiro bench: ${engine}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s, node ${process.version}`);
    for (const note of target.notes) log(`  note: ${note}`);
    if (ONLY === 'lifecycle') {
      const lifecycle = await lifecyclePhase(target);
      log('  goals, as this run measured them:');
      logLifecycleGoals(lifecycle);
      log(`batch (${engine}): refund batch p99 ${ms(lifecycle.refund.p99)} ms, query p99 ${ms(lifecycle.query.p99)} ms`);
      return;
    }

    await peakRate(url, bodies(ids, secret, 3 * MOST_PER_SECOND), 3, CONNECTIONS); // warm both paths
    for (const sending of SENDINGS) await rawRate(raw, ids, sending, 2);
    const http: number[] = [];
    const serverCpu: number[] = [];
    const generatorCpu: number[] = [];
    const databaseCpu: number[] = [];
    const httpShared: number[] = [];
    const raws = { coalesced: new RawFigures(), alone: new RawFigures() };
    const pid = target.server.child.pid!;
    for (let round = 1; round <= ROUNDS; round++) {
      await target.betweenPhases();
      const payloads = bodies(ids, secret, SECONDS * MOST_PER_SECOND);
      const meter = cpuMeter(pid);
      const counted = await serverHotPath(url);
      http.push(await peakRate(url, payloads, SECONDS, CONNECTIONS));
      const used = meter(http.at(-1)! * SECONDS);
      serverCpu.push(used.own);
      generatorCpu.push(used.self);
      databaseCpu.push(used.database);
      httpShared.push(perStatement(counted, await serverHotPath(url)));
      for (const sending of SENDINGS) {
        await target.betweenPhases();
        const client = cpuMeter();
        const counted = rawHotPath(raw);
        const rate = await rawRate(raw, ids, sending);
        const cpu = client(rate * SECONDS);
        raws[sending].add(rate, cpu.own, cpu.database);
        if (sending === 'coalesced') raws.coalesced.shared.push(perStatement(counted, rawHotPath(raw)));
      }
      log(
        `  round ${round}: HTTP /v1/authorise ${http.at(-1)!.toFixed(0)}/s; raw SQL, the gateway's statements ${raws.coalesced.rates.at(-1)!.toFixed(0)}/s, ` +
          `one authorisation's statements alone ${raws.alone.rates.at(-1)!.toFixed(0)}/s`,
      );
    }
    const peak = median(http);
    const rawPeak = median(raws.coalesced.rates);
    log(`  CPU per authorisation: the server ${ms2(median(serverCpu))} ms`);
    for (const sending of SENDINGS) {
      log(
        `    raw SQL ${RAW_NAMES[sending]}: its client ${ms2(median(raws[sending].clientCpu))} ms ` +
          `(${target.kind === 'pglite' ? 'the engine included' : 'node-postgres alone'}; holds under the machine's other loads where rates drift)`,
      );
    }
    log(`    the HTTP load generator ${ms2(median(generatorCpu))} ms (autocannon, in this process: its share of the cores the gateway is measured on)`);
    if (target.kind === 'postgres') {
      log(
        `    PostgreSQL's processes ${ms2(median(databaseCpu))} ms during HTTP, ${ms2(median(raws.coalesced.databaseCpu))} ms during the gateway's statements raw, ` +
          `${ms2(median(raws.alone.databaseCpu))} ms during one authorisation's alone (every postgres process of the machine: meaningful on a quiet one)`,
      );
    }
    log(
      `  claims and outcomes per statement (coalesced): ${ms(median(httpShared))} over HTTP, ${ms(median(raws.coalesced.shared))} in the gateway's statements raw`,
    );
    // The half-rate phases alternate in rounds too, compared by their medians: one 6 s phase's p99
    // is its few slowest requests, and the machine's drift moves them by several times.
    const halves = { http: new HalfRate(), coalesced: new HalfRate(), alone: new HalfRate() };
    const delays: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await target.betweenPhases();
      const halfPayloads = bodies(ids, secret, Math.round((peak / 2) * (SECONDS + 3)));
      freshConnections();
      const server = cpuMeter(pid);
      const counted = await serverHotPath(url);
      const { result, p99 } = await ownEventLoopDelay(() => eventLoopDuring(target, () => evenLatency(peak / 2, SECONDS, (i) => authorise(url, halfPayloads[i]!))));
      halves.http.add(result.result, p99, server(result.result.sent));
      halves.http.addStatements(counted, await serverHotPath(url));
      delays.push(result.delay);
      for (const sending of SENDINGS) {
        await target.betweenPhases();
        const client = cpuMeter();
        const counted = rawHotPath(raw);
        const measured = await ownEventLoopDelay(() => evenLatency(peak / 2, SECONDS, () => rawAuthorisation(raw, ids.account_id, ids.merchant_id, sending)));
        halves[sending].add(measured.result, measured.p99, client(measured.result.sent));
        if (sending === 'coalesced') halves.coalesced.addStatements(counted, rawHotPath(raw));
      }
      log(
        `  at half rate, round ${round}: HTTP p99 ${ms(halves.http.p99s.at(-1)!)} ms; raw SQL, the gateway's statements p99 ${ms(halves.coalesced.p99s.at(-1)!)} ms, ` +
          `one authorisation's statements alone p99 ${ms(halves.alone.p99s.at(-1)!)} ms`,
      );
    }
    const half = halves.http.medians();
    const rawHalves = { coalesced: halves.coalesced.medians(), alone: halves.alone.medians() };
    const rawHalf = rawHalves.coalesced;
    log(`  median: HTTP ${peak.toFixed(0)}/s; raw SQL, the gateway's statements ${rawPeak.toFixed(0)}/s, one authorisation's alone ${median(raws.alone.rates).toFixed(0)}/s`);
    log(`  at half rate (${(peak / 2).toFixed(0)}/s, even arrivals), medians of the rounds: p50 ${ms(half.p50)} ms, p99 ${ms(half.p99)} ms`);
    for (const [round, delay] of delays.entries()) log(`    the server's event-loop delay in round ${round + 1}: ${delay}`);
    for (const sending of SENDINGS) {
      log(`    raw SQL ${RAW_NAMES[sending]} at that rate: p50 ${ms(rawHalves[sending].p50)} ms, p99 ${ms(rawHalves[sending].p99)} ms`);
    }
    // Fewer authorisations share a statement at half rate, so each costs more than at the peak.
    log(
      `    CPU per authorisation at that rate: the server ${ms2(half.ownCpu)} ms; raw SQL (the gateway's statements) its client ${ms2(rawHalf.ownCpu)} ms` +
        (target.kind === 'postgres'
          ? `; PostgreSQL's processes ${ms2(half.databaseCpu)} ms during HTTP, ${ms2(rawHalf.databaseCpu)} ms during the gateway's statements raw`
          : ' (the engine included)'),
    );
    // Where a claim or outcome waits (means, medians of the rounds): for the rest of its event
    // loop's turn before its statement goes, then for the database and the loop that reads the answer.
    log(`    a claim or outcome's mean wait at that rate: over HTTP ${halves.http.statements()}; raw SQL (the gateway's statements) ${halves.coalesced.statements()}`);
    log(
      `    the load generator's own event-loop delay p99: ${ms(half.generatorDelay)} ms sending HTTP, ` +
        SENDINGS.map((sending) => `${ms(rawHalves[sending].generatorDelay)} ms sending raw SQL ${RAW_NAMES[sending]}`).join(', '),
    );
    await target.rawDone();
    const rss = peakRssMb(target.server.child.pid!);
    log(`  server peak RSS: ${rss} MB`);

    const scaling = await twoProcesses(target);

    const lifecycle = await lifecyclePhase(target);

    const ratio = peak / rawPeak;
    const tail = half.p99 / rawHalf.p99;
    log('  goals, as this run measured them:');
    log(`    throughput ${ratio.toFixed(2)} of raw SQL (goal >= 0.80): ${verdict(ratio >= 0.8)}`);
    log(`    p99 at half rate ${tail.toFixed(1)}x the raw statements' p99 (goal <= 2x): ${verdict(tail <= 2)}`);
    const aloneRatio = peak / median(raws.alone.rates);
    // Sent alone, the statements may not keep up with half the gateway's peak: their queue then
    // grows through the phase, and a ratio to their p99 would say nothing.
    const aloneKeepsUp = median(raws.alone.rates) >= peak / 2;
    const aloneTail = `${(half.p99 / rawHalves.alone.p99).toFixed(1)}x`;
    const cannotKeepUp = 'the statements alone cannot keep up at that rate';
    log(`    against one authorisation's statements alone: throughput ${aloneRatio.toFixed(2)}, p99 at half rate ${aloneKeepsUp ? aloneTail : cannotKeepUp}`);
    logLifecycleGoals(lifecycle);
    log(
      `authorise (${engine}): ${peak.toFixed(0)}/s, ratio ${ratio.toFixed(2)} to raw SQL (${aloneRatio.toFixed(2)} to the statements alone), ` +
        `p99 ${ms(half.p99)} ms at half rate (raw ${ms(rawHalf.p99)} ms, ${tail.toFixed(1)}x; ${aloneKeepsUp ? `${aloneTail} the statements alone` : cannotKeepUp}), refund batch p99 ${ms(lifecycle.refund.p99)} ms, query p99 ${ms(lifecycle.query.p99)} ms, ` +
        `peak RSS ${rss} MB${scaling === undefined ? '' : `, two-process scaling ${scaling.toFixed(2)}`}`,
    );
  } finally {
    await target.cleanup();
  }
}

await main();
