// npm run bench:instructions: instructions the server executes per authorisation, counted by
// valgrind's callgrind, which counts the same on a quiet machine and a loaded one (rates, latency
// and even CPU time drift with the machine's other loads; instruction counts do not). The server
// runs as `npm start` runs it, under callgrind with counting off; after a warm-up, counting is
// switched on for BENCH_REQUESTS authorisations sent one at a time, and the count is divided.
//
//   BENCH_DATABASE_URL  PostgreSQL to use, or "pglite"
//   BENCH_REQUESTS      authorisations counted (default 300)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorise, bodies } from './load.ts';
import { startBenchTarget } from './target.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'acquiro-callgrind-'));
const target = await startBenchTarget({
  wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`],
});
try {
  const { url, ids, secret } = target;
  const payloads = bodies(ids, secret, REQUESTS + 200);
  for (let i = 0; i < 200; i++) await authorise(url, payloads[REQUESTS + i]!); // warm: JIT, pool, caches
  const pid = String(target.server.child.pid!);
  const on = await run('callgrind_control', ['--instr=on', pid]);
  if (!on.stdout.includes('OK')) throw new Error(`callgrind_control found no server: ${on.stdout}${on.stderr}`);
  for (let i = 0; i < REQUESTS; i++) await authorise(url, payloads[i]!);
  await run('callgrind_control', ['--instr=off', pid]);
  await run('callgrind_control', ['--dump', pid]);
} finally {
  await target.cleanup();
}
let instructions = 0;
for (const file of readdirSync(dir)) {
  const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), 'utf8'));
  instructions = Math.max(instructions, Number(totals?.[1] ?? 0));
}
process.stdout.write(`acquiro instructions: ${target.kind}, ${REQUESTS} authorisations one at a time: ${(instructions / REQUESTS / 1e6).toFixed(2)} M instructions per authorisation in the server\n`);
rmSync(dir, { recursive: true, force: true });
