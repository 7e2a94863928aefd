// Maps raw rows (snake_case, driver types) to the shapes Drizzle's schema declares, with the
// schema's own column mappers, for the few statements sent as raw SQL. A row read as one JSON value
// (`row_to_json`) maps the same way: its keys are the column names, and the mappers take JSON's
// values (a timestamp's ISO text, a bigint's number, a jsonb's object) as they take the drivers'.
import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';

// `prefix`: the raw row names the table's columns `<prefix><column>` (a join read with its columns
// prefixed, e.g. `r.id`, so that each table's row maps back on its own).
export function rowMapper<T extends Table>(table: T, prefix = ''): (raw: Record<string, unknown>) => InferSelectModel<T> {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, column, name: `${prefix}${column.name}` }));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const { key, column, name } of columns) {
      const value = raw[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as InferSelectModel<T>;
  };
}
