// npm run bench:instructions: instructions the server executes per authorisation, counted by
// valgrind's callgrind, which counts the same on a quiet machine and a loaded one (rates, latency
// and even CPU time drift with the machine's other loads; instruction counts do not). The server
// runs as `npm start` runs it, under callgrind with counting off; after a warm-up long enough for
// V8 to have compiled what it will (after 200 authorisations its compilers were still a third of
// the count), counting is switched on for BENCH_REQUESTS authorisations sent in waves of
// BENCH_CONCURRENCY at once, and the count is divided. The main thread's count is the one that
// repeats (within half a per cent); the background threads' moves by several per cent.
//
//   BENCH_DATABASE_URL    PostgreSQL to use, or "pglite"
//   BENCH_REQUESTS        authorisations counted (default 320)
//   BENCH_WARM            authorisations sent before counting (default 12 800)
//   BENCH_CONCURRENCY     sent this many at once (default 16: the claims and outcomes of a wave share
//                         statements, as under load, src/db/coalesce.ts; 1: one at a time, each alone)
//   BENCH_KEEP_CALLGRIND  set: keep callgrind's output, for callgrind_annotate
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorise, bodies } from './load.ts';
import { startBenchTarget } from './target.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 320);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const WARM = Number(process.env.BENCH_WARM ?? 12_800);
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'acquiro-callgrind-'));
const target = await startBenchTarget({
  wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`],
});
try {
  const { url, ids, secret } = target;
  const payloads = bodies(ids, secret, REQUESTS + WARM);
  /** The payloads from `from` to `to`, in waves of CONCURRENCY sent at once. */
  const send = async (from: number, to: number) => {
    for (let i = from; i < to; i += CONCURRENCY) await Promise.all(payloads.slice(i, Math.min(i + CONCURRENCY, to)).map((payload) => authorise(url, payload)));
  };
  await send(REQUESTS, REQUESTS + WARM); // warm: JIT, pool, caches
  const pid = String(target.server.child.pid!);
  const on = await run('callgrind_control', ['--instr=on', pid]);
  if (!on.stdout.includes('OK')) throw new Error(`callgrind_control found no server: ${on.stdout}${on.stderr}`);
  await send(0, REQUESTS);
  await run('callgrind_control', ['--instr=off', pid]);
  await run('callgrind_control', ['--dump', pid]);
} finally {
  await target.cleanup();
}
// One file per thread (-01 the main thread, where requests are served; the others V8's and
// libuv's helpers: the garbage collector's and the compilers' background work, crypto, files).
let main = 0;
let all = 0;
for (const file of readdirSync(dir)) {
  const totals = Number(/^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? 0);
  all += totals;
  if (file.endsWith('-01')) main += totals;
}
const perAuthorisation = (count: number) => (count / REQUESTS / 1e6).toFixed(3);
process.stdout.write(
  `acquiro instructions: ${target.kind}, ${REQUESTS} authorisations ${CONCURRENCY === 1 ? 'one at a time' : `${CONCURRENCY} at a time`}: ${perAuthorisation(all)} M instructions per authorisation in the server, ${perAuthorisation(main)} M of them on its main thread\n`,
);
if (process.env.BENCH_KEEP_CALLGRIND === undefined) rmSync(dir, { recursive: true, force: true });
else process.stdout.write(`callgrind's output kept in ${dir} (callgrind_annotate)\n`);
