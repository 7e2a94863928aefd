// Global setup of the PostgreSQL test project: PgBouncer installed when missing
// (test/support/provision.ts), and the catalogs vacuumed. Every test file creates a schema and drops it;
// that churn leaves dead rows in the system catalogs, which autovacuum would clean, but CI
// machines may run PostgreSQL with autovacuum off. Vacuuming the catalogs once per run (well
// under a second) keeps runs from slowing each other down.
import pg from 'pg';
import { POSTGRES_URL } from './gateway.ts';
import { PGBOUNCER } from './pgbouncer.ts';
import { executable, provision, type Missing } from './provision.ts';

const CATALOGS = ['pg_attribute', 'pg_class', 'pg_depend', 'pg_type', 'pg_index', 'pg_constraint', 'pg_attrdef', 'pg_sequence', 'pg_namespace'];

/** The tests behind PgBouncer in transaction mode need Debian's pgbouncer (1.18 on Debian 12). */
function missing(): Missing {
  return executable(PGBOUNCER) ? { packages: [], what: [] } : { packages: ['pgbouncer'], what: [`PgBouncer (${PGBOUNCER})`] };
}

export default async function setup(): Promise<void> {
  await provision('PostgreSQL (postgres)', missing);
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The postgres project needs PostgreSQL at ${POSTGRES_URL} (trust auth, database test): ${(error as Error).message}. ` +
        'Start it (.ci/run installs, starts and creates the database), or set ACQUIRO_TEST_POSTGRES_URL.',
      { cause: error },
    );
  }
  try {
    await client.query(`VACUUM ${CATALOGS.map((name) => `pg_catalog.${name}`).join(', ')}`);
  } finally {
    await client.end();
  }
}
