// PGlite instances shared by the test files one vitest worker runs. Creating a PGlite costs
// 2-4 s (WebAssembly and initdb) and the test projects run with `isolate: false`, so a worker
// keeps its instances between files: each test database borrows one that nobody else holds,
// works in a schema of its own on it (as on PostgreSQL), and hands it back clean when dropped.
import type { PGlite } from '@electric-sql/pglite';

const idle: PGlite[] = [];

export interface PgliteLease {
  readonly client: PGlite;
  /** Drops `schema`, resets the session and makes the instance available to the next borrower. */
  release(schema: string): Promise<void>;
  /** Closes the instance for good (a test that closes its database wants it gone). */
  retire(): Promise<void>;
}

/** An instance no open test database uses: a kept one, or a new one when all are taken. */
export async function borrowPglite(): Promise<PgliteLease> {
  const client = idle.pop() ?? (await (await import('@electric-sql/pglite')).PGlite.create());
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
