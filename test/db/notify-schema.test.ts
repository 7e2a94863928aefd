// NOTIFY reaches every listening connection of the database, whatever its schema. Installs (and
// test files) sharing one PostgreSQL each have a schema, and one's account change must not empty
// the others' caches: a payload naming a schema is heard only there (src/db/client.ts, inSchema).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyingSchema } from '../../src/db/notify.ts';
import { ACCOUNTS_CHANNEL } from '../../src/db/repositories/accounts.ts';
import { openTestDatabase, type TestDatabase } from '../support/gateway.ts';
import { until } from '../support/until.ts';

let test: TestDatabase;
beforeAll(async () => {
  test = await openTestDatabase(2);
});
afterAll(() => test?.drop());

describe('a notification about accounts', () => {
  it("is heard in the schema that sent it and by a payload naming none, not by another schema's", async () => {
    let heard = 0;
    const stop = await test.database.listen!(ACCOUNTS_CHANNEL, () => heard++);
    const heardAtLeast = (n: number) => until(`${n} notifications heard`, () => heard >= n, { withinMs: 10_000, everyMs: 20, detail: () => `heard ${heard}` });
    try {
      const notify = (payload: string) => test.database.query(`SELECT pg_notify('${ACCOUNTS_CHANNEL}', ${payload})`);
      // Delivered in order: once the second is heard, the first was passed over.
      await notify(`'t_another_install:41'`);
      await notify(notifyingSchema(`'42'`));
      await heardAtLeast(1);
      await notify(`'43'`); // a process of an earlier release names no schema
      await heardAtLeast(2);
      await sleep(100);
      expect(heard).toBe(2);
    } finally {
      await stop();
    }
  });
});
