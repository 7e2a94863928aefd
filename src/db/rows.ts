// Maps raw rows (snake_case, driver types) to the shapes Drizzle's schema declares, with the
// schema's own column mappers, for the few statements sent as raw SQL. A row read as one JSON value
// (`row_to_json`) maps the same way: its keys are the column names, and the mappers take JSON's
// values (a timestamp's ISO text, a bigint's number, a jsonb's object) as they take the drivers'.
// A read that needs only some columns names them once (`columnPick`), for raw SQL and for the
// query builder alike.
import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';

type Column = ReturnType<typeof getTableColumns>[string];

function mapperOf(columns: readonly { key: string; column: Column; name: string }[]): (raw: Record<string, unknown>) => Record<string, unknown> {
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const { key, column, name } of columns) {
      const value = raw[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row;
  };
}

// `prefix`: the raw row names the table's columns `<prefix><column>` (a join read with its columns
// prefixed, e.g. `r.id`, so that each table's row maps back on its own).
export function rowMapper<T extends Table>(table: T, prefix = ''): (raw: Record<string, unknown>) => InferSelectModel<T> {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, column, name: `${prefix}${column.name}` }));
  return mapperOf(columns) as (raw: Record<string, unknown>) => InferSelectModel<T>;
}

/** Some of a table's columns, for a read that needs no more: their SQL list and the mapper of a row holding just them. */
export interface ColumnPick<Row> {
  /** Names the statements that read these columns (prepared statements are named). */
  readonly name: string;
  /** `"column", "column", …`, in the table's order. */
  readonly list: string;
  readonly map: (raw: Record<string, unknown>) => Row;
  /** The same columns for the query builder's `select`, by their keys in the row. */
  readonly columns: Readonly<Record<string, Column>>;
}

export function columnPick<T extends Table, K extends keyof InferSelectModel<T> & string>(
  table: T,
  name: string,
  keys: readonly K[],
): ColumnPick<Pick<InferSelectModel<T>, K>> {
  const columns = Object.entries(getTableColumns(table))
    .filter(([key]) => (keys as readonly string[]).includes(key))
    .map(([key, column]) => ({ key, column, name: column.name }));
  if (columns.length !== keys.length) throw new Error(`columnPick ${name}: ${keys.join(', ')} are not all columns of the table`);
  return {
    name,
    list: columns.map(({ name: column }) => `"${column}"`).join(', '),
    map: mapperOf(columns) as (raw: Record<string, unknown>) => Pick<InferSelectModel<T>, K>,
    columns: Object.fromEntries(columns.map(({ key, column }) => [key, column])),
  };
}
