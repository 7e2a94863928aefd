// The Drizzle schema (src/db/schema.ts) and the SQL migrations describe the same tables: every
// table, column, type and NOT NULL agree, and the migrations create nothing the schema lacks.
import { readFileSync } from 'node:fs';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/client.ts';
import * as schema from '../../src/db/schema.ts';
import { openTestDatabase, type TestDatabase } from '../support/gateway.ts';

let test: TestDatabase;
beforeAll(async () => {
  test = await openTestDatabase();
  await migrate(test.database);
});
afterAll(() => test?.drop());

const tables: PgTable[] = (Object.values(schema) as unknown[]).filter((value): value is PgTable => value instanceof PgTable);
const SERIALS: Record<string, string> = { bigserial: 'bigint', serial: 'integer' };

async function columnsOf(table: string) {
  return test.database.query<{ name: string; type: string; not_null: boolean }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [table],
  );
}

describe('schema and migrations', () => {
  it.each(tables.map((table) => [getTableConfig(table).name, table] as const))('agree on %s', async (name, table) => {
    const declared = getTableConfig(table)
      .columns.map((column) => ({
        name: column.name,
        type: SERIALS[column.getSQLType()] ?? column.getSQLType(),
        not_null: column.notNull,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const actual = (await columnsOf(name)).sort((a, b) => a.name.localeCompare(b.name));
    expect(actual).toEqual(declared);
  });

  it('creates no table the schema does not declare', async () => {
    const rows = await test.database.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY relname`,
    );
    const declared = tables.map((table) => getTableConfig(table).name).concat('schema_migrations').sort();
    expect(rows.map((r) => r.relname)).toEqual(declared);
  });

  // Each status column's CHECK lists exactly the states of its machine, as schema.ts declares it.
  it.each(tables.flatMap((table) => getTableConfig(table).checks.map((check) => [getTableConfig(table).name, check] as const)))(
    'declares the CHECK of %s as the migrations make it',
    async (name, check) => {
      const [row] = await test.database.query<{ def: string }>(
        `SELECT pg_get_constraintdef(k.oid) AS def FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
          WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND k.conname = $2`,
        [name, check.name],
      );
      const states = (text: string) => [...text.matchAll(/'([A-Za-z_]+)'/g)].map((match) => match[1]).sort();
      const declared = (check.value as unknown as { queryChunks: { value: string[] }[] }).queryChunks.flatMap((chunk) => chunk.value).join('');
      expect(row, `${check.name} exists`).toBeDefined();
      expect(states(row!.def)).toEqual(states(declared));
    },
  );

  // docs/scaling.md's plan for Citus says where each table goes (distributed by which key, a
  // reference table, or local to the coordinator): a table added without a place there fails here.
  it('has a place for every table in the Citus plan of docs/scaling.md', async () => {
    const scaling = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
    const plan = scaling.slice(scaling.indexOf('## Sharding by merchant on Citus'));
    const rows = await test.database.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY relname`,
    );
    expect(rows.map((r) => r.relname).filter((name) => !plan.includes(`\`${name}\``))).toEqual([]);
  });

  it('applies nothing twice', async () => {
    expect(await migrate(test.database)).toEqual([]);
  });
});
