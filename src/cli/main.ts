// The `acquiro` command. On PostgreSQL it works directly. On the embedded database it runs inside
// the process that owns the data directory (a running server), or becomes the owner for the
// duration of the command; it never opens a directory another process holds.
//
// It loads what the command line asks for: help, the version, `sign` and `call` load commander and
// a few pure modules; the configuration is read for the other commands; a command routed to the
// owner loads no use case and opens no database; one run here opens the database (and loads the
// gateway's modules) only when its action first needs it, once commander has checked its arguments.
import { setTimeout as sleep } from 'node:timers/promises';
import { CommanderError } from 'commander';
import type { Config } from '../config.ts';
import { claimDataDir, OWNER_BUSY, runInOwner, type CommandResult, type Ownership } from '../db/ownership.ts';
import { runCommand, type CommandDeps } from './commands.ts';

const OWNER_WAIT_MS = 30_000;
const VERBOSE = '--verbose';

/** What main's catch names when a start fails: set as main learns it. */
let configured: Pick<Config, 'databaseUrl' | 'dataDir'> | undefined;
let starting = 'opening the database for the command';
const UNREACHABLE_WAIT_MS = 5_000;

function finish(result: CommandResult): never {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exit(result.exitCode);
}

/** A problem the operator fixes (the configuration, the data directory): one line, exit 78 (sysexits EX_CONFIG). */
function stop(message: string): never {
  process.stderr.write(`acquiro: ${message}\n`);
  process.exit(78);
}

/** Help and the client commands run without a database: asking for one is a bug. */
const NO_DATABASE = (): Promise<CommandDeps> => Promise.reject(new Error('this command runs without a database'));
const wantsHelpOnly = (argv: readonly string[]) => argv.length === 0 || argv.some((arg) => ['-h', '--help', 'help', '-V', '--version'].includes(arg));
/** Commands of a merchant's developer: they sign and send, and need no database or configuration. */
const CLIENT_COMMANDS = new Set(['sign', 'call']);

/** Another process took the data directory between this one finding no owner and claiming it. */
class DataDirTaken extends Error {}

/**
 * The database of one command run in this process: opened when the command first asks for it,
 * closed when it is done. On the embedded database this process claims the data directory first,
 * and throws DataDirTaken when another process holds it.
 */
class DatabaseOnFirstUse {
  private readonly config: Config;
  private opened: Promise<{ deps: CommandDeps; close(): Promise<void> }> | undefined;
  private ownership: Ownership | null = null;

  constructor(config: Config) {
    this.config = config;
  }

  readonly deps = async (): Promise<CommandDeps> => (await (this.opened ??= this.open())).deps;

  private async open(): Promise<{ deps: CommandDeps; close(): Promise<void> }> {
    if (!this.config.databaseUrl) {
      this.ownership = await claimDataDir(this.config.dataDir, { leaseMs: this.config.dataDirLeaseMs });
      if (!this.ownership) throw new DataDirTaken();
    }
    const [{ openReachableDatabase }, { createDeps, releaseDeps }, { createLogger }, { databaseClock }, { migrate }] = await Promise.all([
      import('../startup.ts'),
      import('../deps.ts'),
      import('../logging.ts'),
      import('../app/clock/database-clock.ts'),
      import('../db/client.ts'),
    ]);
    const database = await openReachableDatabase(this.config, { brief: true });
    try {
      // Before createDeps (which finds nothing left to apply): `acquiro migrate` names what was applied.
      const migrated = await migrate(database);
      // The database's clock, not this host's: what the command stamps is judged beside the database.
      const wallClock = await databaseClock(database);
      const deps = await createDeps({ config: this.config, database, wallClock, log: createLogger('warn'), watchClock: false });
      const close = async () => {
        await releaseDeps(deps);
        await database.close();
      };
      return { deps: { ...deps, migrated }, close };
    } catch (error) {
      await database.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    const opened = await this.opened?.catch(() => undefined);
    await opened?.close();
    await this.ownership?.release(); // before exiting: the lock file outlives the process otherwise
  }
}

/** Runs the command in this process (on the embedded database, DataDirTaken when another process holds the directory). */
async function runHere(config: Config, argv: readonly string[], stdin: () => Promise<string>): Promise<CommandResult> {
  const database = new DatabaseOnFirstUse(config);
  try {
    return await runCommand(argv, database.deps, { stdin });
  } finally {
    await database.close();
  }
}

/** On the embedded database: in the process that owns the directory, or here as its owner. */
async function runOnDataDir(config: Config, argv: readonly string[], piped: string | undefined, stdin: () => Promise<string>): Promise<CommandResult> {
  const deadline = Date.now() + OWNER_WAIT_MS;
  let unreachableSince: number | undefined;
  while (Date.now() < deadline) {
    const routed = await runInOwner(config.dataDir, argv, piped);
    if (routed && routed.exitCode !== OWNER_BUSY) return routed;
    if (routed) unreachableSince = undefined;
    else {
      const here = await runHere(config, argv, stdin).catch((error: unknown) => {
        if (error instanceof DataDirTaken) return null;
        throw error;
      });
      if (here) return here;
      // A live owner whose socket this process cannot reach: one starting up, or one in another
      // network namespace (a container) or on another machine sharing the directory.
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > UNREACHABLE_WAIT_MS) {
        stop(
          `${config.dataDir} is owned by a running acquiro process that this one cannot reach (another network namespace or machine?): ` +
            'run the command where that process runs, or stop it first',
        );
      }
    }
    await sleep(100);
  }
  stop(`${config.dataDir} stayed busy for ${OWNER_WAIT_MS / 1000} s; is another acquiro command stuck?`);
}

/** `--credentials-file -`: credentials on standard input, read here for a command routed to the owner. */
const fromStdin = (argv: readonly string[]) => argv.some((arg, i) => (arg === '--credentials-file' && argv[i + 1] === '-') || arg === '--credentials-file=-');

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

/** `serve` and `worker` run until a signal stops them. */
async function runServer(config: Config, command: 'serve' | 'worker', flags: readonly string[]): Promise<void> {
  // `serve --no-worker` is ACQUIRO_WORKERS=off for this process: many servers, workers apart.
  // `--verbose` (anywhere, as for every command) is read when the start fails (main's catch).
  const allowed = command === 'serve' ? ['--no-worker', VERBOSE] : [VERBOSE];
  const unknown = flags.find((flag) => !allowed.includes(flag));
  if (unknown !== undefined) {
    finish({ stdout: '', stderr: `error: unknown option '${unknown}' for acquiro ${command} (see acquiro ${command} --help)\n`, exitCode: 2 });
  }
  const running =
    command === 'serve'
      ? await (await import('../serve.ts')).serve(flags.includes('--no-worker') ? { ...config, runWorkers: false } : config)
      : await (await import('../jobs/worker.ts')).runWorker(config);
  (await import('../process-stop.ts')).stopOnSignals(running, config, { verbose: flags.includes(VERBOSE) });
}

async function main(argv: readonly string[]): Promise<void> {
  // `--verbose` is the program's option, before the command's name as after it.
  const command = argv.find((arg) => arg !== VERBOSE);
  // Before the configuration is read: help and the client commands never touch the data directory.
  if (wantsHelpOnly(argv) || CLIENT_COMMANDS.has(command ?? '')) {
    finish(await runCommand(argv.length ? argv : ['--help'], NO_DATABASE, { stdin: readStdin }));
  }
  const config = (await import('../config.ts')).loadConfig();
  configured = config;
  if (command === 'serve' || command === 'worker') {
    starting = 'the start';
    return runServer(config, command, argv.filter((_arg, i) => i !== argv.indexOf(command)));
  }
  // A credentials file is read here, in the operator's directory and with the operator's
  // permissions, never by the server a command is routed to: its text becomes standard input.
  const { readCredentialsHere } = await import('./credentials-file.ts');
  const credentials = await readCredentialsHere(argv).catch((error: unknown) => {
    if (error instanceof CommanderError) finish({ stdout: '', stderr: `error: ${error.message}\n`, exitCode: 2 });
    throw error;
  });
  const args = credentials?.argv ?? argv;
  // Read once, here: a command routed to the process owning the data directory gets it with its argv.
  const piped = credentials?.text ?? (args.includes('--password-stdin') || fromStdin(args) ? await readStdin() : undefined);
  const stdin = piped === undefined ? readStdin : async () => piped;
  finish(config.databaseUrl ? await runHere(config, args, stdin) : await runOnDataDir(config, args, piped, stdin));
}

/** A configuration or start-up problem (ConfigError, StartError) is the operator's to fix: one line, exit 78. */
async function isStartProblem(error: unknown): Promise<boolean> {
  const [{ ConfigError }, { StartError }] = await Promise.all([import('../config.ts'), import('../startup.ts')]);
  return error instanceof ConfigError || error instanceof StartError;
}

const argv = process.argv.slice(2);
const where = () => configured ?? { databaseUrl: process.env.DATABASE_URL, dataDir: process.env.ACQUIRO_DATA_DIR ?? './data' };
// A rejection nothing waited for (a bug, in a command or a running server): one line, exit 70.
process.on('unhandledRejection', (error) => {
  void import('../process-stop.ts').then(({ failOneLine }) => failOneLine(error, where(), { what: `acquiro ${argv.find((arg) => arg !== VERBOSE) ?? ''}`.trim(), verbose: argv.includes(VERBOSE) }));
});
main(argv).catch(async (error: unknown) => {
  if (error instanceof Error && (await isStartProblem(error))) stop(error.message);
  // Anything else failed a start (a server's, a worker's, a command's opening of the database):
  // migrations the database refused, a bug. One line, exit 70 or 75, as a command's own unexpected
  // failure (runCommand); the error in full only with --verbose.
  const { startFailure } = await import('../startup.ts');
  finish({ stdout: '', ...startFailure(error, where(), { what: starting, verbose: argv.includes(VERBOSE) }) });
});
