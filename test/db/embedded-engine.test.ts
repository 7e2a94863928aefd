// The embedded engine as the gateway opens it on a data directory of its own: new WAL segments are
// not filled with zeros first (src/db/client.ts says why), a one-shot command's engine has small
// shared buffers, and a lent engine is left as it is.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { openTestDatabase, TEST_DB } from '../support/gateway.ts';
import { tempDir } from '../support/temp.ts';

const setting = async (database: Pick<Database, 'query'>, name = 'wal_init_zero') =>
  (await database.query<{ value: string }>(`SELECT current_setting($1) AS value`, [name]))[0]!.value;

describe.runIf(TEST_DB === 'pglite')('the embedded engine', () => {
  it('opened on a data directory, creates new WAL segments without zero-filling them', async () => {
    const database = await openDatabase({ dataDir: join(tempDir('acquiro-engine-'), 'data') });
    try {
      expect(await setting(database)).toBe('off');
    } finally {
      await database.close();
    }
  });

  it("opened for a command, has 16 MB of shared buffers where a server's has 128 MB", async () => {
    const dataDir = join(tempDir('acquiro-engine-'), 'data');
    for (const [brief, buffers] of [[false, '128MB'], [true, '16MB']] as const) {
      const database = await openDatabase({ dataDir, brief });
      try {
        expect(await setting(database, 'shared_buffers')).toBe(buffers);
        expect(await setting(database)).toBe('off');
      } finally {
        await database.close();
      }
    }
  });

  it('lent by the caller, keeps the caller’s setting', async () => {
    const lent = await openTestDatabase();
    try {
      expect(await setting(lent.database)).toBe('on');
    } finally {
      await lent.drop();
    }
  });
});
