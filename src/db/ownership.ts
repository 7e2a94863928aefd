// One process owns a PGlite data directory: PGlite has no lock of its own, and two processes on
// one directory silently lose data. Ownership is the lock file in the directory
// (data-dir-lock.ts), which every process opening the directory sees. The owner also listens on
// a Unix socket (on Linux in the abstract namespace, which the kernel frees when the owner dies)
// through which a second process (the CLI) runs its command inside the owner, authenticated by a
// token only the data directory's user can read. The socket is for talking, not for locking: a
// process in another network namespace does not see it, but it sees the lock file.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { sameSecret } from '../domain/signature.ts';
import { acquireLock } from './data-dir-lock.ts';
import { restrictToOwner } from './data-dir-modes.ts';

export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** `stdin`: what the calling process read on its standard input for the command (`--password-stdin`). */
export type CommandRunner = (argv: readonly string[], stdin?: string) => Promise<CommandResult>;

export interface Ownership {
  /** Lets the owner run routed commands; until set, callers are told the owner is busy. */
  serveCommands(runner: CommandRunner): void;
  release(): Promise<void>;
}

/** Exit code a routed command gets while the owner cannot take commands (sysexits EX_TEMPFAIL). */
export const OWNER_BUSY = 75;

function address(dataDir: string): string {
  const id = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 40);
  return process.platform === 'linux' ? `\0acquiro-${id}` : join(dataDir, 'acquiro.sock');
}

const tokenPath = (dataDir: string) => join(dataDir, 'admin.token');

/** What the owner does when its lock was taken over (it was paused past its lease): stop writing at once. */
function stopAtOnce(dataDir: string): void {
  process.stderr.write(`acquiro: lost the lock on ${dataDir} (another process took it over): stopping\n`);
  process.exit(75);
}

export interface ClaimOptions {
  /** What to do when the lock was taken over (by default: stop at once). */
  readonly onLost?: () => void;
  /** The lease this process's lock states (ACQUIRO_DATA_DIR_LEASE; data-dir-lock.ts). */
  readonly leaseMs?: number;
}

/**
 * Claims the data directory, or answers null when another live process owns it (wherever it
 * runs). The directory and the files already in it are made readable by this user only, and so
 * is everything this process creates from now on.
 */
export async function claimDataDir(dataDir: string, options: ClaimOptions = {}): Promise<Ownership | null> {
  const onLost = options.onLost ?? (() => stopAtOnce(dataDir));
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const where = address(dataDir);
  const lock = await acquireLock(dataDir, () => ownerAnswers(where), onLost, options.leaseMs);
  if (!lock) return null;
  restrictToOwner(dataDir);
  const token = randomBytes(32).toString('hex');
  let runner: CommandRunner | undefined;
  const server = net.createServer((socket) => serve(socket, token, () => runner));
  try {
    let bound = await listen(server, where);
    if (!bound && !where.startsWith('\0') && !(await ownerAnswers(where))) {
      unlinkSync(where); // a socket file left by a dead owner (non-Linux only)
      bound = await listen(server, where);
    }
    // Bound by a process that holds no lock (an acquiro from before the lock file): it owns the directory.
    if (!bound) {
      await lock.release();
      return null;
    }
    writeFileSync(tokenPath(dataDir), token, { mode: 0o600 });
  } catch (error) {
    await lock.release();
    throw error;
  }
  return {
    serveCommands: (run) => {
      runner = run;
    },
    release: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await lock.release();
    },
  };
}

function listen(server: net.Server, where: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(false);
      else reject(error);
    };
    server.once('error', onError);
    server.listen(where, () => {
      server.off('error', onError);
      resolve(true);
    });
  });
}

function ownerAnswers(where: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(where, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function serve(socket: net.Socket, token: string, runner: () => CommandRunner | undefined): void {
  readLine(socket)
    .then(async (line) => {
      const request = JSON.parse(line) as { token?: unknown; argv?: unknown; stdin?: unknown };
      if (!sameSecret(String(request.token ?? ''), token)) {
        return { stdout: '', stderr: 'refused: wrong admin token\n', exitCode: 77 };
      }
      const run = runner();
      if (!run || !Array.isArray(request.argv)) return { stdout: '', stderr: 'busy\n', exitCode: OWNER_BUSY };
      return typeof request.stdin === 'string' ? run(request.argv.map(String), request.stdin) : run(request.argv.map(String));
    })
    .catch((error: unknown) => ({ stdout: '', stderr: `${String(error)}\n`, exitCode: 1 }))
    .then((result) => socket.end(`${JSON.stringify(result)}\n`));
}

function readLine(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end !== -1) resolve(buffered.slice(0, end));
      if (buffered.length > 1_000_000) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('end', () => reject(new Error('connection closed before a full line')));
  });
}

/** Runs argv inside the owner of dataDir; null when nothing owns it. */
export async function runInOwner(dataDir: string, argv: readonly string[], stdin?: string): Promise<CommandResult | null> {
  let where: string;
  try {
    where = address(dataDir);
  } catch {
    return null; // the directory does not exist yet: nobody owns it
  }
  const socket = await new Promise<net.Socket | null>((resolve) => {
    const connection = net.connect(where, () => resolve(connection));
    connection.on('error', () => resolve(null));
  });
  if (!socket) return null;
  let token: string;
  try {
    token = readFileSync(tokenPath(dataDir), 'utf8').trim();
  } catch {
    socket.destroy(); // the owner is between binding and writing its token
    return { stdout: '', stderr: 'busy\n', exitCode: OWNER_BUSY };
  }
  socket.write(`${JSON.stringify({ token, argv, ...(stdin !== undefined ? { stdin } : {}) })}\n`);
  return JSON.parse(await readLine(socket)) as CommandResult;
}
