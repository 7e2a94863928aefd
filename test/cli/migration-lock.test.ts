// Migrations the database refused for a reason that says nothing about the schema: here the lock
// that keeps two processes from applying them at once, held by another session past the
// lock_timeout of the command's user. The line says to run it again once that session has ended,
// not to check that the database is acquiro's own (docs/operations.md, "Start-up").
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, POSTGRES_URL, TEST_DB, type TestDatabase } from '../support/gateway.ts';
import { acquiro } from '../support/processes.ts';

// The advisory lock migrate() takes (src/db/client.ts).
const MIGRATIONS_LOCK = 72616301;

describe.runIf(TEST_DB === 'postgres')('migrations that waited past lock_timeout for another session', () => {
  let database: TestDatabase;
  let holder: pg.Client;

  beforeAll(async () => {
    database = await openTestDatabase(1);
    holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await database?.drop();
  });

  it('say so and to run them again, exit 70, no stack, nothing applied', async () => {
    const url = `${database.env.DATABASE_URL}%20-c%20lock_timeout%3D300`;
    await holder.query('SELECT pg_advisory_lock($1)', [MIGRATIONS_LOCK]);
    let run;
    try {
      run = await acquiro(['migrate'], { DATABASE_URL: url });
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATIONS_LOCK]);
    }
    expect(run.code).toBe(70);
    expect(run.stderr).toBe(
      "acquiro: the database's migrations failed (the database refused a statement, SQLSTATE 55P03); none was applied: they waited for a lock another session holds (another process applying them, or a long transaction on these tables) past lock_timeout: run it again once that session has ended; run it again with --verbose to print the error in full (it may quote merchants' data)\n",
    );
    const tables = await database.database.query<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1`, [database.schema]);
    expect(tables).toEqual([{ n: 0 }]);
    // Once the lock is free, the same command applies them. Without the 300 ms lock_timeout: every
    // migration of every test's schema takes the same lock (one PostgreSQL database), and a test
    // starting a server meanwhile held it past 300 ms (seen with 8 vitest workers).
    const again = await acquiro(['migrate'], database.env);
    expect([again.code, again.stderr]).toEqual([0, '']);
  });
});
