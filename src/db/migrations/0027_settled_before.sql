-- The latest cutoff a settlement batch has settled an account's currency up to (business time).
-- Workers' business times disagree (hosts' clocks, a process that has not yet seen `acquiro clock
-- advance`): a batch run by one behind this cutoff settles up to it instead of its own, so it
-- never takes back, as if unsettled, money another worker already made available. Null: never
-- settled. src/app/balances/settle.ts.
ALTER TABLE account_balances ADD COLUMN settled_before timestamptz;
