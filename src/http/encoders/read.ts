// The read operations' answer (query, refund search): the envelope, then one list: an entry
// per row of the page (with page and total), or per asked-for key in the order asked, an
// unknown-key entry where a key matched nothing.
import type { ReadResult } from '../../app/batch/read.ts';
import type { AccountRow } from '../../db/schema.ts';

export interface ReadEncoding<Key extends string, Row> {
  /** The answer's list field. */
  readonly list: string;
  entry(row: Row): Record<string, unknown>;
  unknown(field: Key, key: string): Record<string, unknown>;
}

export function readAnswer<Key extends string, Row>(
  account: AccountRow,
  result: ReadResult<Key, Row>,
  encoding: ReadEncoding<Key, Row>,
): Record<string, unknown> {
  const envelope = { merchant_id: account.merchantId, account_id: account.id, return_status: '1', return_message: 'OK' };
  if (result.kind === 'keys') {
    const entries = result.matches.flatMap(({ key, rows }) =>
      rows.length > 0 ? rows.map((row) => encoding.entry(row)) : [encoding.unknown(result.field, key)],
    );
    return { ...envelope, [encoding.list]: entries };
  }
  return { ...envelope, page: String(result.page), total: String(result.total), [encoding.list]: result.rows.map((row) => encoding.entry(row)) };
}
