// Helpers for payout tests: a valid /v1/payout body to vary, sandbox funding, the balances and
// the payouts' rows as the CLI and the database show them, and the rail task run by hand.
import { randomUUID } from 'node:crypto';
import { drivePayouts } from '../../src/app/payouts/rail.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from './client.ts';
import type { TestGateway } from './gateway.ts';

/** A company in Germany, paid in EUR by SEPA. */
export const SEPA_BENEFICIARY = {
  entity_type: 'COMPANY',
  company_name: 'Acme GmbH',
  bank_details: { account_name: 'Acme GmbH', bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE89370400440532013000' },
};

/** A person in the US, paid in USD by ACH. */
export const ACH_BENEFICIARY = {
  entity_type: 'PERSONAL',
  first_name: 'Ada',
  last_name: 'Lovelace',
  bank_details: { account_name: 'Ada Lovelace', bank_country_code: 'US', account_currency: 'USD', account_number: '123456789', bank_code: '026009593' },
};

/** A valid ACH payout of 100.00 USD for the account of `client` (a signed client, or only its ids). */
export function payoutBody(client: Pick<SignedClient, 'ids'>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...client.ids,
    request_id: randomUUID(),
    payment_currency: 'USD',
    payment_amount: '100.00',
    payment_method: 'LOCAL',
    reason: 'Supplier invoice',
    reference: 'INV-2026-001',
    beneficiary: ACH_BENEFICIARY,
    ...overrides,
  };
}

export const accountArgs = (client: SignedClient) => ['--merchant-id', client.ids.merchant_id, '--account-id', client.ids.account_id];

export async function topUp(gw: TestGateway, client: SignedClient, currency: string, amount: string): Promise<void> {
  const result = await runCommand(['balance', 'topup', ...accountArgs(client), '--currency', currency, '--amount', amount], gw.gateway.deps);
  if (result.exitCode !== 0) throw new Error(result.stderr);
}

export async function balanceOf(gw: TestGateway, client: SignedClient, currency: string): Promise<{ available: string; reserved: string } | undefined> {
  const shown = JSON.parse((await runCommand(['balance', 'show', ...accountArgs(client), '--json'], gw.gateway.deps)).stdout) as { currency: string; available: string; reserved: string }[];
  const row = shown.find((b) => b.currency === currency);
  return row ? { available: row.available, reserved: row.reserved } : undefined;
}

export async function payoutCount(gw: TestGateway, client: SignedClient): Promise<number> {
  const [row] = await gw.database.query<{ n: string }>(`SELECT count(*)::text AS n FROM payouts WHERE account_id = $1`, [client.ids.account_id]);
  return Number(row!.n);
}

/** Runs the rail task until it has nothing due. */
export async function driveRail(gw: TestGateway): Promise<void> {
  for (let i = 0; i < 10; i++) if ((await drivePayouts(gw.gateway.deps)) === 0) break;
}
