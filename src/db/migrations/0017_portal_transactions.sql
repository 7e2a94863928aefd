-- The merchant portal's reads (docs/portal.md): staff search a merchant's payments across its
-- accounts, newest first or by amount, by card's last four digits or the shopper's e-mail; the
-- settlement report sums an account's merchant_balance book per day.
CREATE INDEX payments_merchant_created ON payments (merchant_id, created_at DESC, id DESC);
CREATE INDEX payments_merchant_last4 ON payments (merchant_id, card_last4) WHERE card_last4 IS NOT NULL;
CREATE INDEX payments_merchant_email ON payments (merchant_id, lower(shopper_email)) WHERE shopper_email IS NOT NULL;
CREATE INDEX ledger_entries_account_booked ON ledger_entries (account_id, book, booked_at);
