// npm run bench: the gateway's authorisations over HTTP, on PostgreSQL, beside the same SQL sent
// raw through node-postgres in the same run. Prints rates, latency and the server's peak RSS; the
// last line is the summary. A two-process phase runs a second gateway on the same database and
// prints the scaling factor against one process in the same run. Measures; never fails on a figure.
//
// This machine drifts by a fifth from one minute to the next, so HTTP and raw SQL are measured in
// alternating phases over several rounds and compared by their medians. Latency at half the peak
// rate is measured with requests sent at even intervals (open loop): a closed loop or a bursty
// generator would measure its own queue instead of the gateway.
//
//   BENCH_DATABASE_URL  PostgreSQL to use (default postgresql://postgres@127.0.0.1:5432/test);
//                       the bench works in a schema of its own and drops it afterwards
//   BENCH_SECONDS       length of each measured phase (default 6)
//   BENCH_ROUNDS        alternating HTTP/raw rounds (default 3)
//   BENCH_CONNECTIONS   concurrent HTTP connections and SQL clients (default 32)
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { sign } from '../src/domain/signature.ts';
import { freshCard } from '../test/support/fixtures.ts';
import { acquiro, startServer } from '../test/support/processes.ts';
import { lifecycleLatencies } from './lifecycle.ts';
import { rawAuthorisation } from './raw-authorise.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const schema = `bench_${randomBytes(4).toString('hex')}`;
const schemaUrl = `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;

const log = (line: string) => process.stdout.write(`${line}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;

function peakRssMb(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

interface Ids {
  readonly merchant_id: string;
  readonly account_id: string;
}

/** Signed, unique card payment bodies, built before the clock starts. */
function bodies(ids: Ids, secret: string, count: number): string[] {
  const tag = randomBytes(4).toString('hex');
  return Array.from({ length: count }, (_, i) => {
    const body = {
      ...ids,
      order_no: `B-${tag}-${i}`,
      currency: 'USD',
      amount: '10.00',
      card: freshCard(),
      expiration_month: '12',
      expiration_year: '2030',
      security_code: '123',
    };
    return JSON.stringify({ ...body, encryption_data: sign(body, secret) });
  });
}

/** Closed loop at full speed: `connections` requests always in flight. */
async function peakRate(url: string, payloads: string[], seconds = SECONDS, connections = CONNECTIONS): Promise<number> {
  let next = 0;
  const result = await autocannon({
    url: `${url}/v1/authorise`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: payloads[next++ % payloads.length]! }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) log(`  warning: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

/**
 * Open loop: `send(i)` every 1/rate seconds whatever the answers do, for two warm-up seconds (not
 * measured: connections open, queues settle) and then `seconds`; latency counts from when each
 * request was due.
 */
async function evenLatency(rate: number, seconds: number, send: (i: number) => Promise<unknown>) {
  const times: number[] = [];
  const warm = Math.round(rate * 2);
  const total = warm + Math.round(rate * seconds);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(
      send(i).then(() => {
        if (i >= warm) times.push(performance.now() - due);
      }),
    );
  }
  await Promise.all(inFlight);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

const authorise = (url: string, payload: string) =>
  fetch(`${url}/v1/authorise`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload }).then((response) => response.text());

/** Two gateways on one database, each driven by half the connections at once: their sum. */
async function pairRate(urls: readonly [string, string], ids: Ids, secret: string): Promise<number> {
  const half = Math.max(1, Math.round(CONNECTIONS / 2));
  const rates = await Promise.all(urls.map((url) => peakRate(url, bodies(ids, secret, Math.round(SECONDS * 1_500)), SECONDS, half)));
  return rates[0]! + rates[1]!;
}

async function rawRate(pool: pg.Pool, ids: Ids, seconds = SECONDS): Promise<number> {
  let done = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await rawAuthorisation(pool, ids.account_id, ids.merchant_id);
        done += 1;
      }
    }),
  );
  return done / seconds;
}

async function main() {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const poolSize = String(Math.min(CONNECTIONS, 20));
  const env = { DATABASE_URL: schemaUrl, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ACQUIRO_DB_POOL_SIZE: poolSize };
  // The load generator is one client address with many connections (the open-loop phases open one
  // per request in flight), and one account: neither the per-address cap nor the fair share apply.
  const serverEnv = { ...env, ACQUIRO_WORKERS: 'off', ACQUIRO_MAX_CONNECTIONS_PER_CLIENT: '100000', ACQUIRO_BUSY_IN_FLIGHT: '100000' };
  const logFile = join(tmpdir(), `acquiro-bench-${schema}.log`);
  const server = await startServer(serverEnv, { logFile });
  const pool = new pg.Pool({ connectionString: schemaUrl, max: Number(poolSize) });
  try {
    const created = JSON.parse((await acquiro(['merchants', 'create', '--name', 'Bench', '--rate-limit', '1000000', '--json'], env)).stdout) as Record<string, string>;
    const ids = { merchant_id: created.merchant_id!, account_id: created.account_id! };
    const secret = created.secret_key!;
    log(`acquiro bench: PostgreSQL, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s, node ${process.version}`);
    const autovacuum = (await admin.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!.autovacuum;
    // Without autovacuum, the phases' dead rows slow the next ones: vacuum between them, as
    // autovacuum would in any production database.
    const vacuum = async () => {
      if (autovacuum === 'off') await pool.query('VACUUM payments, refunds, events, ledger_entries');
    };
    if (autovacuum === 'off') log('  note: autovacuum is off on this PostgreSQL; the bench vacuums its tables between phases');

    await peakRate(server.url, bodies(ids, secret, 3_000), 3); // warm both paths
    await rawRate(pool, ids, 2);
    const http: number[] = [];
    const raw: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await vacuum();
      http.push(await peakRate(server.url, bodies(ids, secret, Math.round(SECONDS * 2_500))));
      await vacuum();
      raw.push(await rawRate(pool, ids));
      log(`  round ${round}: HTTP /v1/authorise ${http.at(-1)!.toFixed(0)}/s, raw SQL (same statements) ${raw.at(-1)!.toFixed(0)}/s`);
    }
    const peak = median(http);
    const rawPeak = median(raw);
    await vacuum();
    const halfPayloads = bodies(ids, secret, Math.round((peak / 2) * (SECONDS + 3)));
    const half = await evenLatency(peak / 2, SECONDS, (i) => authorise(server.url, halfPayloads[i]!));
    await vacuum();
    const rawHalf = await evenLatency(peak / 2, SECONDS, () => rawAuthorisation(pool, ids.account_id, ids.merchant_id));
    log(`  median: HTTP ${peak.toFixed(0)}/s, raw SQL ${rawPeak.toFixed(0)}/s`);
    log(`  at half rate (${(peak / 2).toFixed(0)}/s, even arrivals): p50 ${half.p50.toFixed(1)} ms, p99 ${half.p99.toFixed(1)} ms`);
    log(`    the same statements raw at that rate: p50 ${rawHalf.p50.toFixed(1)} ms, p99 ${rawHalf.p99.toFixed(1)} ms (the database's own share)`);
    const rss = peakRssMb(server.child.pid!);
    log(`  server peak RSS: ${rss} MB`);

    // Two processes on one PostgreSQL, alternating with one in the same run: the scaling factor.
    const second = await startServer(serverEnv, { logFile });
    const one: number[] = [];
    const two: number[] = [];
    try {
      await peakRate(second.url, bodies(ids, secret, 2_000), 2); // warm the second process
      for (let round = 1; round <= ROUNDS; round++) {
        await vacuum();
        one.push(await peakRate(server.url, bodies(ids, secret, Math.round(SECONDS * 2_500))));
        await vacuum();
        two.push(await pairRate([server.url, second.url], ids, secret));
        log(`  round ${round}: one gateway ${one.at(-1)!.toFixed(0)}/s, two gateways ${two.at(-1)!.toFixed(0)}/s`);
      }
    } finally {
      await second.stop();
    }
    const scaling = median(two) / median(one);
    log(`  two gateways on one PostgreSQL: ${median(two).toFixed(0)}/s, scaling factor ${scaling.toFixed(2)} (the load generator shares the cores)`);

    await acquiro(['ips', 'add', '--merchant-id', ids.merchant_id, '--account-id', ids.account_id, '--cidr', '127.0.0.1'], env);
    await vacuum();
    const lifecycle = await lifecycleLatencies(server.url, { ...ids, secret }, undefined, vacuum);
    const ms = (n: number) => n.toFixed(1);
    log(`  refund batch of 50, one at a time: p50 ${ms(lifecycle.refund.p50)} ms, p99 ${ms(lifecycle.refund.p99)} ms (${lifecycle.refund.rounds} batches; goal p99 <= 50 ms)`);
    log(`  query of 100 orders, one at a time: p50 ${ms(lifecycle.query.p50)} ms, p99 ${ms(lifecycle.query.p99)} ms (${lifecycle.query.rounds} queries; goal p99 <= 20 ms)`);
    log(`  goals: ratio >= 0.6, p99 <= 10 ms at half rate, RSS <= 200 MB`);
    log(
      `authorise: ${peak.toFixed(0)}/s, ratio ${(peak / rawPeak).toFixed(2)} to raw SQL, p99 ${half.p99.toFixed(1)} ms at half rate ` +
        `(raw ${rawHalf.p99.toFixed(1)} ms), peak RSS ${rss} MB, two-process scaling ${scaling.toFixed(2)}`,
    );
  } finally {
    await pool.end();
    await server.stop();
    rmSync(logFile, { force: true });
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

await main();
