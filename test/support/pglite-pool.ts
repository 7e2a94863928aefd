// PGlite instances shared by the test files one vitest worker runs. Creating a PGlite costs
// 2-4 s (WebAssembly and initdb) and the test projects run with `isolate: false`, so a worker
// keeps its instances between files: each test database borrows one that nobody else holds,
// works in a schema of its own on it (as on PostgreSQL), and hands it back clean when dropped.
import type { PGlite } from '@electric-sql/pglite';
import { createHash, type Hash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const idle: PGlite[] = [];

const PGLITE_PACKAGE = new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url);

/** A hash begun with the installed PGlite's version, for what the tests keep on disk per version (the dump, the data directory templates). */
export function pgliteVersionHash(): Hash {
  return createHash('sha256').update(readFileSync(PGLITE_PACKAGE));
}

/** Where the dump of a fresh in-memory database is kept: one per PGlite version, shared by the workers of this machine. */
function dumpPath(): string {
  return join(tmpdir(), `acquiro-test-pglite-dump-${pgliteVersionHash().digest('hex').slice(0, 16)}.tar`);
}

let initialised: Promise<Blob> | undefined;

/**
 * A new in-memory PGlite. Most of what a new one costs is initdb (some 1.8 s of CPU, the same
 * every time), so instances after the machine's first start from a dump of a fresh one
 * (loadDataDir: some 0.4 s). The dump is written whole under a temporary name and renamed into
 * place, so no worker reads half of one.
 */
async function createPglite(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  initialised ??= (async () => {
    const path = dumpPath();
    try {
      return new Blob([readFileSync(path)]);
    } catch {
      const fresh = await PGlite.create();
      const dump = await fresh.dumpDataDir('none');
      await fresh.close();
      const partial = `${path}.${process.pid}`;
      writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
      renameSync(partial, path);
      return dump;
    }
  })();
  return PGlite.create({ loadDataDir: await initialised });
}

export interface PgliteLease {
  readonly client: PGlite;
  /** Drops `schema`, resets the session and makes the instance available to the next borrower. */
  release(schema: string): Promise<void>;
  /** Closes the instance for good (a test that closes its database wants it gone). */
  retire(): Promise<void>;
}

/** An instance no open test database uses: a kept one, or a new one when all are taken. */
export async function borrowPglite(): Promise<PgliteLease> {
  const client = idle.pop() ?? (await createPglite());
  let released = false;
  return {
    client,
    async release(schema) {
      if (released) return;
      released = true;
      try {
        await client.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        // The next borrower starts from a fresh session (search_path, settings, advisory locks,
        // prepared statements). DISCARD ALL fails inside a transaction left open.
        await client.exec('DISCARD ALL');
        idle.push(client);
      } catch {
        // Left in a state we cannot vouch for: nobody gets it again.
        await client.close().catch(() => {});
      }
    },
    async retire() {
      if (released) return;
      released = true;
      await client.close();
    },
  };
}
