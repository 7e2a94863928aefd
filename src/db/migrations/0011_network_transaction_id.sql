-- The card network's id of an approved payment: a merchant-initiated charge of a stored card
-- quotes the id of the payment that stored it (credential-on-file rules of the card networks).
ALTER TABLE payments ADD COLUMN network_transaction_id text;
