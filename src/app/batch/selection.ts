// What a read operation (query, refund search) answers: a list of at most 100 keys of one kind,
// or one page of 100 of a time window (both ends inclusive). The adapter parses the request into
// a Selection (src/http/requests/selection.ts).

export const PAGE_SIZE = 100;

export type Selection<Key extends string> =
  | { readonly kind: 'keys'; readonly field: Key; readonly keys: readonly string[] }
  | { readonly kind: 'window'; readonly from: Date; readonly to: Date; readonly page: number };

/** `transaction_date` and the other times of read answers: `YYYYMMDDhhmmss`, UTC. */
export function compactTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[-T:]/g, '');
}
