// What the read operations (query, refund search) share: registered IPs only, one selection
// (selection.ts), the answer's envelope, and a time window read one page at a time. The
// selection is read from the request only once the caller's address is admitted: a stranger
// learns nothing of the request's shape.
import type { Db } from '../../db/client.ts';
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

export interface ReadSpec<Key extends string, Row> {
  /** The answer's list field. */
  readonly list: string;
  /** The key fields a request may select by, besides the time window. */
  readonly keys: readonly Key[];
  /** One page of the window, oldest first, and how many rows the whole window holds. */
  page(db: Db, accountId: string, page: Page): Promise<{ rows: Row[]; total: number }>;
  entry(row: Row): Record<string, unknown>;
  /** The entries answering a list of keys, in the order asked. */
  byKeys(db: Db, accountId: string, field: Key, keys: readonly string[]): Promise<Record<string, unknown>[]>;
}

export async function readAnswer<Key extends string, Row>(
  deps: Pick<Deps, 'database'>,
  account: AccountRow,
  select: (keys: readonly Key[]) => Selection<Key>,
  callerIp: string,
  spec: ReadSpec<Key, Row>,
): Promise<Record<string, unknown>> {
  await assertRegisteredIp(deps, account.id, callerIp);
  const selection = select(spec.keys);
  const envelope = { merchant_id: account.merchantId, account_id: account.id, return_status: '1', return_message: 'OK' };
  const db = deps.database.db;
  if (selection.kind === 'keys') return { ...envelope, [spec.list]: await spec.byKeys(db, account.id, selection.field, selection.keys) };
  const { rows, total } = await spec.page(db, account.id, {
    from: selection.from,
    to: selection.to,
    offset: (selection.page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
  });
  return { ...envelope, page: String(selection.page), total: String(total), [spec.list]: rows.map((row) => spec.entry(row)) };
}
