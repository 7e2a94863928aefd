// npm run bench:profile: where the server's CPU goes under load. Starts the server as `npm start`
// does with a probe preloaded (server-probe.ts), warms it, starts the CPU profiler and the
// event-loop delay histogram, drives the load (by default /v1/authorise at full speed for
// BENCH_SECONDS), stops it, and prints the server's CPU per request, the profile's self time per
// place and per frame, and our own functions' inclusive time. Shares of one profile are steady on
// a loaded machine where rates are not; docs/performance.md reads them.
//
//   BENCH_DATABASE_URL  PostgreSQL to use, or "pglite" for the embedded database
//   BENCH_LOAD          authorise (default); refund: refund batches of 50 one at a time; query:
//                       queries of 100 orders one at a time (as npm run bench sends them)
//   BENCH_SECONDS       length of the profiled load (default 10; refund and query: their rounds)
//   BENCH_ROUNDS        refund batches or queries profiled (default 100 and 200)
//   BENCH_CONNECTIONS   concurrent HTTP connections (default 32)
//   BENCH_TOP           frames listed (default 25)
//   BENCH_KEEP_PROFILE  set: keep the .cpuprofile (open it in Chrome DevTools) instead of deleting it
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summariseProfile, type CpuProfile } from './cpu-profile.ts';
import { prepareOrders, queryTimes, refundTimes } from './lifecycle.ts';
import { bodies, cpuSeconds, median, MOST_PER_SECOND, peakRate } from './load.ts';
import { startBenchTarget, type BenchTarget } from './target.ts';
import { acquiro } from '../test/support/processes.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TOP = Number(process.env.BENCH_TOP ?? 25);
const LOAD = process.env.BENCH_LOAD ?? 'authorise';
if (!['authorise', 'refund', 'query'].includes(LOAD)) throw new Error(`BENCH_LOAD=${LOAD}: authorise, refund or query`);
const log = (line: string) => process.stdout.write(`${line}\n`);
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

const dir = mkdtempSync(join(tmpdir(), 'acquiro-profile-'));
const file = join(dir, 'server.cpuprofile');
const target = await startBenchTarget({ profileFile: file, connections: CONNECTIONS });
let delay: string;
try {
  const profiled = LOAD === 'authorise' ? await profileAuthorise(target) : await profileBatches(target);
  log(`acquiro profile: ${target.kind}, ${profiled}`);
  await target.server.stop();
  delay = /event-loop-delay .*/.exec(readFileSync(target.logFile, 'utf8'))?.[0] ?? '';
} finally {
  await target.cleanup();
}
if (delay) log(`  ${delay} (profiled window)`);
const summary = summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
log(`  profile: ${(summary.totalMs / 1000).toFixed(1)} s sampled, idle ${pct(summary.idleMs, summary.totalMs)}, GC ${pct(summary.gcMs, summary.busyMs)} of busy`);
log('  self time by place (share of busy time):');
for (const [where, ms] of summary.byPlace.slice(0, 15)) log(`    ${pct(ms, summary.busyMs).padStart(6)}  ${where}`);
log(`  top ${TOP} frames by self time:`);
for (const frame of summary.frames.slice(0, TOP)) log(`    ${pct(frame.selfMs, summary.busyMs).padStart(6)}  ${frame.name}`);
log('  inclusive time of our own functions:');
for (const frame of summary.ours.slice(0, TOP)) log(`    ${pct(frame.totalMs, summary.busyMs).padStart(6)}  ${frame.name}`);
if (process.env.BENCH_KEEP_PROFILE === undefined) rmSync(dir, { recursive: true, force: true });
else log(`  profile kept in ${file}`);

/** /v1/authorise at full speed; answers what was profiled. */
async function profileAuthorise(target: BenchTarget): Promise<string> {
  const { url, ids, secret } = target;
  await peakRate(url, bodies(ids, secret, 3 * MOST_PER_SECOND), 3, CONNECTIONS); // warm: JIT, pool, caches
  target.server.child.kill('SIGUSR2');
  const cpuBefore = cpuSeconds(target.server.child.pid!);
  const rate = await peakRate(url, bodies(ids, secret, SECONDS * MOST_PER_SECOND), SECONDS, CONNECTIONS);
  const cpuMs = ((cpuSeconds(target.server.child.pid!) - cpuBefore) * 1000) / (rate * SECONDS);
  return `${CONNECTIONS} connections, ${SECONDS} s: ${rate.toFixed(0)} authorisations/s, server CPU ${cpuMs.toFixed(2)} ms per authorisation (profiler included)`;
}

/** Refund batches of 50 or queries of 100 orders, one at a time, as npm run bench sends them. */
async function profileBatches(target: BenchTarget): Promise<string> {
  const { url, ids, secret } = target;
  const account = { ...ids, secret };
  const ips = await acquiro(['ips', 'add', '--merchant-id', ids.merchant_id, '--account-id', ids.account_id, '--cidr', '127.0.0.1'], target.env);
  if (ips.code !== 0) throw new Error(`acquiro ips add failed: ${ips.stderr}`);
  const orders = await prepareOrders(url, account);
  const rounds = Number(process.env.BENCH_ROUNDS ?? (LOAD === 'refund' ? 100 : 200));
  const run = (n: number) => (LOAD === 'refund' ? refundTimes(url, account, orders, n) : queryTimes(url, account, orders, n));
  await run(10); // warm
  await target.betweenPhases();
  target.server.child.kill('SIGUSR2');
  const cpuBefore = cpuSeconds(target.server.child.pid!);
  const times = await run(rounds);
  const cpuMs = ((cpuSeconds(target.server.child.pid!) - cpuBefore) * 1000) / rounds;
  const what = LOAD === 'refund' ? 'refund batches of 50' : 'queries of 100 orders';
  return `${rounds} ${what} one at a time: median ${median(times).toFixed(1)} ms, server CPU ${cpuMs.toFixed(2)} ms each (profiler included)`;
}
