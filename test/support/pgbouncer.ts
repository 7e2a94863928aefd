// PgBouncer 1.18 (Debian's `pgbouncer`) in transaction mode, started by the tests that need it: a
// port of its own, its configuration in a temporary directory, trust authentication, and one
// pooled database that lands in the test's schema (connect_query sets the search_path on each
// server connection, since PgBouncer refuses the `options` startup parameter).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acceptsConnections, freePort, whileRunning } from './processes.ts';
import { tempDir } from './temp.ts';
import { until } from './until.ts';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface Bouncer {
  /** A postgres:// URL through PgBouncer, landing in the schema. */
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

/** PgBouncer in front of `upstream` (a postgres:// URL of the real server), landing in `schema`. */
export async function startPgBouncer(upstream: string, schema: string): Promise<Bouncer> {
  if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: apt-get install pgbouncer (Debian 12 ships 1.18)`);
  const server = new URL(upstream);
  const dir = tempDir('acquiro-pgbouncer-');
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), `"${server.username}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `acquiro = host=${server.hostname} port=${server.port || 5432} dbname=${server.pathname.slice(1)} user=${server.username} connect_query='SET search_path TO ${schema}'`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 20',
      '',
    ].join('\n'),
  );
  // PgBouncer will not run as root; it drops to `nobody`, who must read its files.
  chmodSync(dir, 0o755);
  const child: ChildProcess = spawn(PGBOUNCER, [...(process.getuid?.() === 0 ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  process.once('exit', () => child.kill('SIGKILL'));
  const url = `postgresql://${server.username}@127.0.0.1:${port}/acquiro`;
  await until('pgbouncer accepting connections', () => acceptsConnections(url), { withinMs: 15_000, everyMs: 100, ...whileRunning({ child, output: () => output }) });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
