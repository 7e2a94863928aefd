-- Background rounds whose cost grew with their tables instead of with the work due
-- (docs/performance.md, Background rounds at scale).

-- Settlement. A round read every merchant_balance entry of the gateway to find the accounts with
-- money due. Now each movement a settlement has not yet counted carries settlement_pending, and
-- a round finds the due ones through the partial index below, by booked_at: only the movements
-- booked before its cutoff and not yet counted. The settlement of an account's currency clears
-- the mark of what it counted, in the statement that sums what is due (src/db/repositories/balances.ts),
-- so the amount stays cumulative as before: the mark only says where to look.
-- New rows are marked (the default; read only on merchant_balance movements). The rows already
-- there read false without a rewrite (the first default is stored once, not written per row), and
-- those not yet counted are marked below: booked at or after their currency's last cutoff, of a
-- currency never settled, or of a currency whose sum at its cutoff is not zero (a movement
-- committed after the batch that passed its booking time). A mark too many costs one settlement
-- of nothing; a movement left unmarked is of a currency that owes nothing up to its cutoff.
ALTER TABLE ledger_entries ADD COLUMN settlement_pending boolean NOT NULL DEFAULT false;
ALTER TABLE ledger_entries ALTER COLUMN settlement_pending SET DEFAULT true;
WITH counted AS (
  SELECT b.account_id, b.currency, b.settled_before
    FROM account_balances b JOIN ledger_entries x ON x.account_id = b.account_id AND x.currency = b.currency
         AND x.book = 'merchant_balance' AND (x.kind = 'settlement' OR x.booked_at < b.settled_before)
   GROUP BY b.account_id, b.currency, b.settled_before
  HAVING sum(x.amount) = 0)
UPDATE ledger_entries e SET settlement_pending = true
 WHERE e.book = 'merchant_balance' AND e.kind <> 'settlement'
   AND NOT EXISTS (SELECT 1 FROM counted c WHERE c.account_id = e.account_id AND c.currency = e.currency AND e.booked_at < c.settled_before);
CREATE INDEX ledger_entries_settlement_pending ON ledger_entries (booked_at)
  WHERE settlement_pending AND book = 'merchant_balance' AND kind <> 'settlement';
-- The latest cutoff any batch settled up to: a worker whose business time lags looks past its own
-- cutoff only as far as that (a movement booked before it and committed after it).
CREATE INDEX account_balances_settled_before ON account_balances (settled_before);

-- The notification claim's cap per account (QUEUES.dueNotifications, 4 attempts in flight). It
-- numbered every due event with a window over its account, which sorted them all every second.
-- Now it counts each account's leases in one pass over the due events (no sort), and the accounts
-- whose turn it is take their first free events in order from this index, at most their cap less
-- their leases: only those are sorted (src/db/repositories/leases.ts, groupCapped).
CREATE INDEX events_delivery_due_account ON events (account_id, next_attempt_at NULLS FIRST, id) WHERE delivery_status = 'pending';
