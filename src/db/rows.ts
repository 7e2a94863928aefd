// Maps raw rows (snake_case, driver types) to the shapes Drizzle's schema declares, with the
// schema's own column mappers, for the few statements sent as raw SQL.
import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';

export function rowMapper<T extends Table>(table: T): (raw: Record<string, unknown>) => InferSelectModel<T> {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, column }));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const { key, column } of columns) {
      const value = raw[column.name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as InferSelectModel<T>;
  };
}
