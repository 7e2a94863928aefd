// The authorisation hot path's two statements (payments.ts, claimStatement and OUTCOME_SQL) for several
// payments at once: what src/db/coalesce.ts sends when concurrent requests arrive together. Each
// takes the single statement's parameters, one list per payment, as columns of arrays, so the two
// forms cannot drift apart: the same values, the same casts, the same rows written.
import { journalAccountSql } from './ledger.ts';
import { riskFactsOfRows, RISK_FIELDS } from './risk.ts';

/** claimParams' 22 columns (then riskParams' 11), by name and array type. */
const CLAIM_COLUMNS = [
  ['id', 'text'],
  ['account_id', 'text'],
  ['merchant_id', 'text'],
  ['order_no', 'text'],
  ['kind', 'text'],
  ['payment_method', 'text'],
  ['amount', 'bigint'],
  ['currency', 'text'],
  ['request_fingerprint', 'text'],
  ['request', 'text'],
  ['card_brand', 'text'],
  ['card_bin', 'text'],
  ['card_last4', 'text'],
  ['card_length', 'int'],
  ['card_fingerprint', 'text'],
  ['token_id', 'text'],
  ['shopper_email', 'text'],
  ['shopper_ip', 'text'],
  ['notify_url', 'text'],
  ['connector', 'text'],
  ['created_at', 'timestamptz'],
  ['next_check_at', 'timestamptz'],
] as const;
const RISK_TYPES: Record<(typeof RISK_FIELDS)[number], string> = {
  account_id: 'text',
  since: 'timestamptz',
  payment_id: 'text',
  card_cap: 'int',
  card: 'text',
  email_cap: 'int',
  email: 'text',
  ip_cap: 'int',
  ip: 'text',
  bin: 'text',
  country: 'text',
};
const CLAIM_INPUT = [...CLAIM_COLUMNS, ...RISK_FIELDS.map((field) => [`risk_${field}`, RISK_TYPES[field]] as const)];

const unnest = (columns: readonly (readonly [string, string])[], first = 1) =>
  `unnest(${columns.map(([, type], index) => `$${index + first}::${type}[]`).join(', ')}) AS i(${columns.map(([name]) => name).join(', ')})`;

const inserted = CLAIM_COLUMNS.map(([name]) => name);

// The payments of the batch claimed before this one (in the order they are inserted) with `value`
// in `column` and in this one's velocity window: the statement's snapshot shows none of them, yet
// counted one after the other each would have seen the earlier ones (a burst of one card).
const earlierInBatch = (column: string, value: string) => `(SELECT count(*)::int FROM claimed e
      WHERE e.${column} = ${value} AND e.created_at >= i.risk_since AND (e.account_id, e.order_no) < (i.account_id, i.order_no))`;

// Rows are inserted in (account, order) order, so two batches holding the same orders wait for
// each other in one order and never deadlock; a twin within the batch finds its order taken.
export const CLAIMS_SQL = `WITH i AS (SELECT * FROM ${unnest(CLAIM_INPUT)}), claimed AS (
    INSERT INTO payments (${inserted.join(', ')}, status)
    SELECT ${inserted.map((name) => (name === 'request' ? 'request::jsonb' : name)).join(', ')}, 'processing'
    FROM i ORDER BY account_id, order_no
    ON CONFLICT (account_id, order_no) DO NOTHING
    RETURNING id, version, updated_at, account_id, order_no, card_fingerprint, shopper_email, shopper_ip, created_at
  )
  SELECT claimed.id, claimed.version, claimed.updated_at, ${riskFactsOfRows((field) => `i.risk_${field}`, earlierInBatch)} FROM claimed JOIN i USING (id)`;

/** One payment's claimStatement parameters each, as CLAIMS_SQL's arrays. */
export function claimsParams(each: readonly unknown[][]): unknown[] {
  return columnsOf(each, CLAIM_INPUT.length);
}

/** outcomeParams' columns by position (1-based), except the journal's four arrays (14 to 17). */
const OUTCOME_COLUMNS: readonly (readonly [number, string, string])[] = [
  [1, 'status', 'text'],
  [2, 'captured_amount', 'bigint'],
  [3, 'connector_reference', 'text'],
  [4, 'action_url', 'text'],
  [5, 'result_code', 'text'],
  [6, 'result_message', 'text'],
  [7, 'risk_score', 'int'],
  [8, 'risk_action', 'text'],
  [9, 'risk_reasons', 'text'],
  [10, 'threeds_result', 'text'],
  [11, 'token_id', 'text'],
  [12, 'id', 'text'],
  [13, 'read_version', 'int'],
  [18, 'event_id', 'text'],
  [19, 'event_type', 'text'],
  [20, 'event_payload', 'text'],
  [21, 'new_token_id', 'text'],
  [22, 'token_ciphertext', 'text'],
  [23, 'token_vault_key_id', 'text'],
  [24, 'token_brand', 'text'],
  [25, 'token_bin', 'text'],
  [26, 'token_last4', 'text'],
  [27, 'token_length', 'int'],
  [28, 'token_expiry_month', 'int'],
  [29, 'token_expiry_year', 'int'],
  [30, 'token_fingerprint', 'text'],
  [31, 'from_status', 'text'],
  [32, 'next_check_at', 'timestamptz'],
  [33, 'network_transaction_id', 'text'],
  [34, 'booked_at', 'timestamptz'],
  [35, 'held_since', 'timestamptz'],
];
const JOURNAL = { paymentId: 12, first: 14, count: 4 } as const;
const journalParam = OUTCOME_COLUMNS.length + 1;

// The same write as OUTCOME_SQL for each payment whose version and status are still the ones its
// decision was read at; a payment that moved on is left out of every part, and its caller re-reads.
export const OUTCOMES_SQL = `WITH i AS (SELECT * FROM ${unnest(OUTCOME_COLUMNS.map(([, name, type]) => [name, type] as const))}), updated AS (
    UPDATE payments p SET status = i.status, captured_amount = i.captured_amount, connector_reference = i.connector_reference,
      action_url = i.action_url, result_code = i.result_code, result_message = i.result_message, risk_score = i.risk_score,
      risk_action = i.risk_action, risk_reasons = i.risk_reasons::jsonb, threeds_result = i.threeds_result, token_id = i.token_id,
      next_check_at = i.next_check_at, network_transaction_id = i.network_transaction_id, held_since = coalesce(i.held_since, p.held_since),
      version = p.version + 1, updated_at = now()
    FROM i WHERE p.id = i.id AND p.version = i.read_version AND p.status = i.from_status
    RETURNING p.id, p.account_id, p.currency, p.notify_url, p.version, p.updated_at
  ), journal AS (
    INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, payment_id, booked_at)
    SELECT e.journal_id, ${journalAccountSql('e.book', 'u.account_id')}, e.book, e.kind, u.currency, e.amount, u.id, i.booked_at
    FROM unnest($${journalParam}::text[], $${journalParam + 1}::text[], $${journalParam + 2}::text[], $${journalParam + 3}::text[], $${journalParam + 4}::bigint[])
      AS e(payment_id, journal_id, book, kind, amount)
    JOIN updated u ON u.id = e.payment_id JOIN i ON i.id = u.id
  ), event AS (
    INSERT INTO events (id, account_id, type, payment_id, payload, notify_url, delivery_status)
    SELECT i.event_id, u.account_id, i.event_type, u.id, i.event_payload::jsonb, u.notify_url, CASE WHEN u.notify_url IS NULL THEN 'no_target' ELSE 'pending' END
    FROM updated u JOIN i ON i.id = u.id WHERE i.event_type IS NOT NULL
  ), token AS (
    INSERT INTO card_tokens (id, account_id, pan_ciphertext, vault_key_id, brand, bin, last4, pan_length, expiry_month, expiry_year, fingerprint)
    SELECT i.new_token_id, u.account_id, i.token_ciphertext, i.token_vault_key_id, i.token_brand, i.token_bin, i.token_last4, i.token_length,
      i.token_expiry_month, i.token_expiry_year, i.token_fingerprint
    FROM updated u JOIN i ON i.id = u.id WHERE i.new_token_id IS NOT NULL
  )
  SELECT id, version, updated_at FROM updated`;

/** One payment's OUTCOME_SQL parameters each, as OUTCOMES_SQL's arrays (its journal entries flattened, each naming its payment). */
export function outcomesParams(each: readonly unknown[][]): unknown[] {
  const columns = OUTCOME_COLUMNS.map(([position]) => each.map((params) => params[position - 1]));
  const journal: unknown[][] = [[], [], [], [], []];
  for (const params of each) {
    const entries = params.slice(JOURNAL.first - 1, JOURNAL.first - 1 + JOURNAL.count) as unknown[][];
    entries[0]!.forEach((_, entry) => {
      journal[0]!.push(params[JOURNAL.paymentId - 1]);
      entries.forEach((list, index) => journal[index + 1]!.push(list[entry]));
    });
  }
  return [...columns, ...journal];
}

function columnsOf(each: readonly unknown[][], count: number): unknown[] {
  return Array.from({ length: count }, (_, column) => each.map((params) => params[column]));
}
