// A fault for the tests of the record step: the outbox (the events table) refuses the events whose
// `column` holds a value listed in the table `refused_<column>`, so a unit of work fails at its
// last statement, after every other write of its transaction.
import type { Database } from '../../src/db/client.ts';

export interface OutboxRefusal {
  /** Refuses the events whose column holds `value`, from now on. */
  refuse(value: string): Promise<unknown>;
  /** Refuses nothing any more. */
  clear(): Promise<unknown>;
}

export async function refuseEventsBy(database: Pick<Database, 'query'>, column: 'type' | 'payment_id'): Promise<OutboxRefusal> {
  const table = `refused_${column}`;
  await database.query(`CREATE TABLE ${table} (value text PRIMARY KEY)`);
  await database.query(`CREATE FUNCTION refuse_event_by_${column}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF EXISTS (SELECT 1 FROM ${table} WHERE value = NEW.${column}) THEN
        RAISE EXCEPTION 'the outbox refuses the events of %', NEW.${column};
      END IF;
      RETURN NEW;
    END $fn$`);
  await database.query(`CREATE TRIGGER refuse_event_by_${column} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_event_by_${column}()`);
  return {
    refuse: (value) => database.query(`INSERT INTO ${table} (value) VALUES ($1)`, [value]),
    clear: () => database.query(`DELETE FROM ${table}`),
  };
}
