// Start-up's dealings with the machine, each turned into one line that names the setting to
// change (a StartError, exit code 78) instead of a stack trace: the port, the data directory, the
// database. The port is reserved before anything else, so a start that cannot serve writes nothing.
import net from 'node:net';
import { inspect } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { MigrationFailed, openDatabase, type Database, type DatabaseOptions } from './db/client.ts';
import { sqlStateOf } from './db/error-chain.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { UNAVAILABLE, UNEXPECTED } from './exit-codes.ts';

export class StartError extends Error {}

function codeOf(error: unknown): string {
  const { code } = (error ?? {}) as { code?: unknown };
  return typeof code === 'string' ? code : '';
}

function portProblem(config: Pick<Config, 'port' | 'host'>, error: unknown): StartError {
  const { port, host } = config;
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return new StartError(`PORT ${port} is already in use on HOST ${host}: stop what listens there, or set PORT to a free port`);
    case 'EACCES':
      return new StartError(`PORT ${port} on HOST ${host} needs privileges this process does not have: set PORT to a port above 1023`);
    case 'EADDRNOTAVAIL':
      return new StartError(`HOST ${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1 by default)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartError(`HOST ${host} does not resolve to an address: set HOST to an address of this machine`);
    default:
      return new StartError(`cannot listen on HOST ${host} PORT ${port}: ${codeOf(error) || String((error as Error)?.message ?? error)}`);
  }
}

export interface PortReservation {
  /** Frees the port for the server to listen on, a moment later. */
  release(): Promise<void>;
}

/** Binds PORT on HOST (and holds it) before anything is written, or explains why it cannot. */
export async function reservePort(config: Pick<Config, 'port' | 'host'>): Promise<PortReservation> {
  // It only holds the port: a connection that comes meanwhile is closed at once (server.close
  // would otherwise wait for it, and a client would wait for an answer that never comes).
  const holder = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (error) => reject(portProblem(config, error)));
    holder.listen({ port: config.port, host: config.host, exclusive: true }, () => resolve());
  });
  return { release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

/** The server listens on PORT and HOST, or the start stops naming them. */
export async function listenOn(app: FastifyInstance, config: Pick<Config, 'port' | 'host'>): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    throw portProblem(config, error);
  }
}

/** Where DATABASE_URL points, without its user name or password. */
function serverOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the server it names';
  }
}

function databaseProblem(config: Pick<Config, 'databaseUrl' | 'dataDir'>, error: unknown): StartError {
  const code = codeOf(error);
  if (!config.databaseUrl) {
    return new StartError(`ACQUIRO_DATA_DIR ${config.dataDir} cannot be used as the embedded database: ${code || String((error as Error)?.message ?? error)}`);
  }
  const where = serverOf(config.databaseUrl);
  const why =
    code === 'ECONNREFUSED'
      ? 'nothing accepts connections there'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'its host name does not resolve'
        : code === '28P01' || code === '28000'
          ? 'the server refused the user name or password'
          : code === '3D000'
            ? 'that database does not exist'
            : /timeout/i.test(String((error as Error)?.message))
              ? 'no answer in time'
              : code || 'the connection failed';
  return new StartError(`DATABASE_URL: cannot use the PostgreSQL database at ${where}: ${why}`);
}

/** The database the configuration names, with how to reach it (a pooler, a direct connection). */
export function databaseOptions(config: Config): DatabaseOptions {
  return {
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.dbPoolSize,
    prepared: config.databasePrepared,
    directUrl: config.databaseDirectUrl,
  };
}

/** Opens the configured database and checks it answers, or explains which setting is wrong; `brief` for a one-shot command (DatabaseOptions). */
export async function openReachableDatabase(config: Config, { brief = false } = {}): Promise<Database> {
  let database: Database | undefined;
  try {
    database = await openDatabase({ ...databaseOptions(config), brief });
    await database.ping();
    return database;
  } catch (error) {
    await database?.close().catch(() => {});
    throw databaseProblem(config, error);
  }
}

/** A data directory problem (cannot create, cannot write) as a line naming ACQUIRO_DATA_DIR. */
export function dataDirProblem(config: Pick<Config, 'dataDir'>, error: unknown): Error {
  if (error instanceof StartError || !codeOf(error).startsWith('E')) return error as Error;
  return new StartError(`ACQUIRO_DATA_DIR ${config.dataDir} cannot be used: ${codeOf(error)}`);
}

/**
 * A warning line when PostgreSQL's autovacuum is off (docs/operations.md). Without it nothing
 * renews the planner's statistics, so each connection keeps the plans of the hot statements it
 * made when the tables were small: measured, the outcome of a batch then scanned the whole
 * payments table, four times slower after 20 000 payments and slower with each one
 * (docs/performance.md, "an eleventh session"); and dead rows are never reclaimed. The embedded
 * database does that work itself (src/db/maintenance.ts).
 */
export async function warnIfAutovacuumOff(database: Pick<Database, 'kind' | 'query'>, log: Pick<Logger, 'warn'>): Promise<void> {
  if (database.kind !== 'postgres') return;
  const [setting] = await database.query<{ autovacuum: string }>('SHOW autovacuum');
  if (setting?.autovacuum !== 'off') return;
  log.warn(
    { setting: 'autovacuum' },
    "PostgreSQL's autovacuum is off: statistics and plans go stale as tables grow and dead rows are never reclaimed; turn it on (docs/operations.md)",
  );
}

/**
 * A start (a server's, a worker's, a command's opening of the database) that failed past the
 * checks of its settings: the migrations refused, the database lost on the way, a bug. One line
 * saying what failed and what to check, exit 70 (75 when the database could not be reached), as a
 * command's unexpected failure; never the error itself, which may quote a statement and its values
 * (merchants' data), unless `verbose` asks for it in full, above that line.
 */
export function startFailure(
  error: unknown,
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  options: { what: string; verbose: boolean },
): { stderr: string; exitCode: number } {
  const detail = options.verbose ? `${inspect(error, { depth: 8 })}\n` : '';
  const more = options.verbose ? '' : "; run it again with --verbose to print the error in full (it may quote merchants' data)";
  const database = config.databaseUrl ? `the PostgreSQL database at ${serverOf(config.databaseUrl)} (DATABASE_URL)` : `the embedded database in ACQUIRO_DATA_DIR ${config.dataDir}`;
  if (isDatabaseUnavailable(error)) {
    return { stderr: `${detail}acquiro: ${options.what} failed: ${database} could not be reached: run it again once it answers\n`, exitCode: UNAVAILABLE };
  }
  // What kind of error, without its text: a SQLSTATE, or the error's class.
  const failed = error instanceof MigrationFailed ? error.cause : error;
  const state = sqlStateOf(failed);
  const kind = state ? `the database refused a statement, SQLSTATE ${state}` : failed instanceof Error ? failed.name : typeof failed;
  if (error instanceof MigrationFailed) {
    const which = error.version ? `migration ${error.version}: ` : '';
    return { stderr: `${detail}acquiro: the database's migrations failed (${which}${kind}); none was applied: ${migrationAdvice(state, config)}${more}\n`, exitCode: UNEXPECTED };
  }
  const report = options.verbose ? 'report it with the error above' : "run it again with --verbose to print the error in full (it may quote merchants' data), and report it";
  return { stderr: `${detail}acquiro: ${options.what} failed unexpectedly (${kind}) on ${database}: ${report}\n`, exitCode: UNEXPECTED };
}

/**
 * What to do about migrations the database refused, by the SQLSTATE's class: most refusals come
 * from a database that is not acquiro's own (a table of the same name, no right to create one),
 * but a lock waited on past lock_timeout, a statement cancelled or a server out of resources say
 * nothing about the schema, and are over once run again at a better moment.
 */
function migrationAdvice(state: string | undefined, config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (state === '55P03' || state === '40P01') {
    return 'they waited for a lock another session holds (another process applying them, or a long transaction on these tables) past lock_timeout: run it again once that session has ended';
  }
  if (state === '57014') return 'a statement was cancelled (by statement_timeout, or by an operator): run it again, with a longer statement_timeout for this user if it recurs';
  if (state?.startsWith('53') || state?.startsWith('58')) return 'the database server ran short of resources (disk, memory or connections): free them and run it again';
  return config.databaseUrl
    ? "check that DATABASE_URL names a database (or schema, by its search_path) that is acquiro's own, whose user may create tables in it"
    : `check that ACQUIRO_DATA_DIR ${config.dataDir} holds acquiro's own database and nothing else's`;
}
