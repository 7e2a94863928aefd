// How a running process (`npm start`, `acquiro serve`, `acquiro worker`) stops on a signal, and
// what it says when something fails that nothing waited for.
import type { Config } from './config.ts';
import { startFailure } from './startup.ts';

type Where = Pick<Config, 'databaseUrl' | 'dataDir'>;

/**
 * The failure's one line (startFailure's: exit 70, or 75 when the database could not be reached),
 * the error in full above it only with `--verbose`: a stack may quote statements and merchants'
 * data, and PGlite's printed 200 KB of its minified source.
 */
export function failOneLine(error: unknown, where: Where, options: { what: string; verbose: boolean }): never {
  const failure = startFailure(error, where, options);
  process.stderr.write(failure.stderr);
  process.exit(failure.exitCode);
}

/**
 * SIGINT and SIGTERM stop `running` once, then exit 0. A second signal while it stops (Ctrl-C,
 * then the supervisor's SIGTERM) leaves the stop under way to finish: it ran the stop again beside
 * the first, whose closing of the closed database threw, a stack and exit 1. A stop that fails is
 * one line, exit 70.
 */
export function stopOnSignals(running: { stop(): Promise<void> }, where: Where, options: { verbose: boolean; announce?: (signal: string) => void }): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    options.announce?.(signal);
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => failOneLine(error, where, { what: 'the stop', verbose: options.verbose }),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
