// npm run bench: the gateway's authorisations over HTTP, on PostgreSQL, beside the same SQL sent
// raw through node-postgres in the same run. Prints rates, latency and the server's peak RSS;
// the last line is the summary the issue asks for. Measures; never fails on a figure.
//
//   BENCH_DATABASE_URL  PostgreSQL to use (default postgresql://postgres@127.0.0.1:5432/test);
//                       the bench works in a schema of its own and drops it afterwards
//   BENCH_SECONDS       length of each measured phase (default 10)
//   BENCH_CONNECTIONS   concurrent HTTP connections and SQL clients (default 32)
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';
import { sign } from '../src/sdk/index.ts';
import { acquiro, startServer } from '../test/support/processes.ts';
import { freshCard } from '../test/support/fixtures.ts';
import { lifecycleLatencies } from './lifecycle.ts';
import { rawAuthorisation } from './raw-authorise.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const schema = `bench_${randomBytes(4).toString('hex')}`;
const schemaUrl = `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;

function log(line: string) {
  process.stdout.write(`${line}\n`);
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Signed, unique card payment bodies, built before the clock starts. */
function bodies(ids: { merchant_id: string; account_id: string }, secret: string, count: number, tag: string): string[] {
  return Array.from({ length: count }, (_, i) => {
    const body = {
      ...ids,
      order_no: `B-${tag}-${i}-${randomBytes(4).toString('hex')}`,
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

async function drive(url: string, payloads: string[], options: { overallRate?: number }) {
  let next = 0;
  const result = await autocannon({
    url: `${url}/v1/authorise`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [{ setupRequest: (request) => ({ ...request, body: payloads[next++ % payloads.length]! }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) log(`  warning: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rate: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function rawRate(pool: pg.Pool, accountId: string, merchantId: string): Promise<number> {
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await rawAuthorisation(pool, accountId, merchantId);
        done += 1;
      }
    }),
  );
  return done / SECONDS;
}

async function main() {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const env = { DATABASE_URL: schemaUrl, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', ACQUIRO_DB_POOL_SIZE: String(Math.min(CONNECTIONS, 20)) };
  const server = await startServer({ ...env, ACQUIRO_WORKERS: 'off' });
  const pool = new pg.Pool({ connectionString: schemaUrl, max: Math.min(CONNECTIONS, 20) });
  try {
    const created = JSON.parse((await acquiro(['merchants', 'create', '--name', 'Bench', '--rate-limit', '1000000', '--json'], env)).stdout) as Record<string, string>;
    const ids = { merchant_id: created.merchant_id!, account_id: created.account_id! };
    log(`acquiro bench: PostgreSQL, ${CONNECTIONS} connections, ${SECONDS} s phases, node ${process.version}`);

    await drive(server.url, bodies(ids, created.secret_key!, 3_000, 'warm'), {});
    const peak = await drive(server.url, bodies(ids, created.secret_key!, 60_000, 'peak'), {});
    log(`  HTTP /v1/authorise, peak:      ${peak.rate.toFixed(0)}/s, p50 ${peak.p50} ms, p99 ${peak.p99} ms`);
    const half = await drive(server.url, bodies(ids, created.secret_key!, 60_000, 'half'), { overallRate: Math.max(1, Math.round(peak.rate / 2)) });
    log(`  HTTP /v1/authorise, half rate: ${half.rate.toFixed(0)}/s, p50 ${half.p50} ms, p99 ${half.p99} ms`);
    const rss = peakRssMb(server.child.pid!);

    await rawRate(pool, ids.account_id, ids.merchant_id); // warm the raw path too
    const raw = await rawRate(pool, ids.account_id, ids.merchant_id);
    log(`  raw SQL, same statements:      ${raw.toFixed(0)}/s`);
    log(`  server peak RSS:               ${rss} MB`);

    await acquiro(['ips', 'add', '--merchant-id', ids.merchant_id, '--account-id', ids.account_id, '--cidr', '127.0.0.1'], env);
    const lifecycle = await lifecycleLatencies(server.url, { ...ids, secret: created.secret_key! });
    const ms = (n: number) => n.toFixed(1);
    log(`  refund batch of 50, one at a time: p50 ${ms(lifecycle.refund.p50)} ms, p99 ${ms(lifecycle.refund.p99)} ms (${lifecycle.refund.rounds} batches; goal p99 <= 50 ms)`);
    log(`  query of 100 orders, one at a time: p50 ${ms(lifecycle.query.p50)} ms, p99 ${ms(lifecycle.query.p99)} ms (${lifecycle.query.rounds} queries; goal p99 <= 20 ms)`);
    log(`  goals: ratio >= 0.6, p99 <= 10 ms at half rate, RSS <= 200 MB`);
    log(`authorise: ${peak.rate.toFixed(0)}/s, ratio ${(peak.rate / raw).toFixed(2)} to raw SQL, p99 ${half.p99} ms at half rate, peak RSS ${rss} MB`);
  } finally {
    await pool.end();
    await server.stop();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

await main();
