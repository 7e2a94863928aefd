// What the read operations (query, refund search) share: registered IPs only, one selection
// (selection.ts), and a time window read one page at a time. The selection is read from the
// request only once the caller's address is admitted: a stranger learns nothing of the
// request's shape (over HTTP the address is checked before the field names too: the operations'
// admitCaller, src/http/operation.ts; the check here keeps the use case safe on its own). The
// result is typed rows; src/http/encoders/read.ts makes the answer.
import type { Database, Db } from '../../db/client.ts';
import type { AccountRow } from '../../db/schema.ts';
import type { Deps } from '../context.ts';
import { assertRegisteredIp } from './allow-list.ts';
import { PAGE_SIZE, type Selection } from './selection.ts';

export interface Page {
  readonly from: Date;
  readonly to: Date;
  readonly offset: number;
  readonly limit: number;
}

/** The rows one asked-for key matched (none: the key matches nothing of this account). */
export interface KeyMatch<Row> {
  readonly key: string;
  readonly rows: readonly Row[];
}

export type ReadResult<Key extends string, Row> =
  | { readonly kind: 'keys'; readonly field: Key; readonly matches: readonly KeyMatch<Row>[] }
  | { readonly kind: 'page'; readonly page: number; readonly total: number; readonly rows: readonly Row[] };

export interface ReadSpec<Key extends string, Row> {
  /** The key fields a request may select by, besides the time window. */
  readonly keys: readonly Key[];
  /** One page of the window, oldest first, and how many rows the whole window holds. */
  page(db: Db, accountId: string, page: Page): Promise<{ rows: Row[]; total: number }>;
  /** The rows answering a list of keys, one match per key in the order asked. */
  byKeys(database: Database, accountId: string, field: Key, keys: readonly string[]): Promise<KeyMatch<Row>[]>;
}

export async function readRows<Key extends string, Row>(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  select: (keys: readonly Key[]) => Selection<Key>,
  callerIp: string,
  spec: ReadSpec<Key, Row>,
): Promise<ReadResult<Key, Row>> {
  await assertRegisteredIp(deps, account.id, callerIp);
  const selection = select(spec.keys);
  if (selection.kind === 'keys') {
    return { kind: 'keys', field: selection.field, matches: await spec.byKeys(deps.database, account.id, selection.field, selection.keys) };
  }
  const { rows, total } = await spec.page(deps.database.db, account.id, {
    from: selection.from,
    to: selection.to,
    offset: (selection.page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
  });
  return { kind: 'page', page: selection.page, total, rows };
}
