// Preloaded into a benched server (NODE_OPTIONS=--import). Each SIGUSR2 writes the event loop's
// delay histogram since the previous one as a line of the server's output (from the second on)
// and starts it afresh; the first also starts V8's CPU profiler when BENCH_PROFILE_FILE is set,
// and the profile is written there at exit. Start-up (module loading, migrations) and warm-up stay
// out of both. How long a ready callback waited for the loop
// is the part of tail latency no SQL accounts for.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_PROFILE_FILE;
const histogram = monitorEventLoopDelay({ resolution: 1 });
const session = new Session();
let started = false;

let measuring = false;

function writeHistogram(): void {
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  process.stdout.write(
    `event-loop-delay p50=${ms(histogram.percentile(50))} p90=${ms(histogram.percentile(90))} p99=${ms(histogram.percentile(99))} max=${ms(histogram.max)} ms\n`,
  );
}

process.on('SIGUSR2', () => {
  if (measuring) writeHistogram();
  measuring = true;
  histogram.reset();
  histogram.enable();
  if (!file || started) return;
  started = true;
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 250 });
  session.post('Profiler.start');
});

process.once('exit', () => {
  if (measuring) writeHistogram();
  // An in-thread session answers synchronously: the profile is written before the process ends.
  if (started) session.post('Profiler.stop', (error, result) => error ?? writeFileSync(file!, JSON.stringify(result.profile)));
});
