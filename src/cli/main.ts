// The `acquiro` command. On PostgreSQL it works directly. On the embedded database it runs inside
// the process that owns the data directory (a running server), or becomes the owner for the
// duration of the command; it never opens a directory another process holds.
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { claimDataDir, OWNER_BUSY, runInOwner, type CommandResult } from '../db/ownership.ts';
import { createDeps, releaseDeps } from '../gateway.ts';
import { createLogger } from '../logging.ts';
import { runWorker } from '../jobs/worker.ts';
import { serve } from '../serve.ts';
import { openReachableDatabase, StartError } from '../startup.ts';
import { runCommand, type CommandDeps } from './commands.ts';

const OWNER_WAIT_MS = 30_000;
const UNREACHABLE_WAIT_MS = 5_000;

function finish(result: CommandResult): never {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exit(result.exitCode);
}

async function runHere(config: Config, argv: readonly string[], stdin: () => Promise<string>): Promise<CommandResult> {
  const database = await openReachableDatabase(config);
  try {
    const deps = await createDeps({ config, database, log: createLogger('warn'), watchClock: false });
    try {
      return await runCommand(argv, deps, { stdin });
    } finally {
      await releaseDeps(deps);
    }
  } finally {
    await database.close();
  }
}

/** Help needs no database, and opening the embedded one takes seconds. */
const NO_DATABASE = {} as CommandDeps;
const wantsHelpOnly = (argv: readonly string[]) => argv.length === 0 || argv.some((arg) => ['-h', '--help', 'help', '-V', '--version'].includes(arg));
/** Commands of a merchant's developer: they sign and send, and need no database or configuration. */
const CLIENT_COMMANDS = new Set(['sign', 'call']);

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function main(argv: readonly string[]): Promise<void> {
  // Before the configuration is read: help and the client commands never touch the data directory.
  if (wantsHelpOnly(argv) || CLIENT_COMMANDS.has(argv[0] ?? '')) {
    finish(await runCommand(argv.length ? argv : ['--help'], NO_DATABASE, { stdin: readStdin }));
  }
  const config = loadConfig();
  if (argv[0] === 'serve' || argv[0] === 'worker') {
    // `serve --no-worker` is ACQUIRO_WORKERS=off for this process: many servers, workers apart.
    const flags = argv.slice(1);
    const allowed = argv[0] === 'serve' ? ['--no-worker'] : [];
    const unknown = flags.find((flag) => !allowed.includes(flag));
    if (unknown !== undefined) {
      finish({ stdout: '', stderr: `error: unknown option '${unknown}' for acquiro ${argv[0]} (see acquiro ${argv[0]} --help)\n`, exitCode: 2 });
    }
    const running = argv[0] === 'serve' ? await serve(flags.includes('--no-worker') ? { ...config, runWorkers: false } : config) : await runWorker(config);
    const stop = () => void running.stop().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  if (wantsHelpOnly(argv)) finish(await runCommand(argv.length ? argv : ['--help'], NO_DATABASE));
  // Read once, here: a command routed to the process owning the data directory gets it with its argv.
  const piped = argv.includes('--password-stdin') ? await readStdin() : undefined;
  const stdin = piped === undefined ? readStdin : async () => piped;
  if (config.databaseUrl) finish(await runHere(config, argv, stdin));

  const deadline = Date.now() + OWNER_WAIT_MS;
  let unreachableSince: number | undefined;
  while (Date.now() < deadline) {
    const routed = await runInOwner(config.dataDir, argv, piped);
    if (routed && routed.exitCode !== OWNER_BUSY) finish(routed);
    if (routed) unreachableSince = undefined;
    else {
      const ownership = await claimDataDir(config.dataDir);
      if (ownership) {
        let result: CommandResult;
        try {
          result = await runHere(config, argv, stdin);
        } finally {
          await ownership.release(); // before exiting: the lock file outlives the process otherwise
        }
        finish(result);
      }
      // A live owner whose socket this process cannot reach: one starting up, or one in another
      // network namespace (a container) or on another machine sharing the directory.
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > UNREACHABLE_WAIT_MS) {
        throw new StartError(
          `${config.dataDir} is owned by a running acquiro process that this one cannot reach (another network namespace or machine?): ` +
            'run the command where that process runs, or stop it first',
        );
      }
    }
    await sleep(100);
  }
  throw new StartError(`${config.dataDir} stayed busy for ${OWNER_WAIT_MS / 1000} s; is another acquiro command stuck?`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartError) {
    process.stderr.write(`acquiro: ${error.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`acquiro: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
