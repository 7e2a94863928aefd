// Which fields a payout needs beyond the request's own (request_id, amounts, …), by party,
// payment_method, the beneficiary bank's country and entity_type: one table, shown in
// docs/payouts.md. The bank identity fields (iban, swift_code, account_number, bank_code,
// bank_branch) depend on the rail and are checked with their formats by bank-details.ts.
import type { PayoutMethod } from './clearing.ts';

export type EntityType = 'PERSONAL' | 'COMPANY';

export interface Requirement {
  /** `payer` rows apply when the request has a payer object. */
  readonly party: 'beneficiary' | 'payer';
  /** Absent: any. */
  readonly method?: PayoutMethod;
  readonly country?: string;
  readonly entityType?: EntityType;
  /** Paths relative to the party. */
  readonly fields: readonly string[];
}

export const REQUIREMENTS: readonly Requirement[] = [
  { party: 'beneficiary', fields: ['entity_type', 'bank_details', 'bank_details.account_name', 'bank_details.bank_country_code', 'bank_details.account_currency'] },
  { party: 'beneficiary', entityType: 'PERSONAL', fields: ['first_name', 'last_name'] },
  { party: 'beneficiary', entityType: 'COMPANY', fields: ['company_name'] },
  { party: 'payer', fields: ['entity_type'] },
  { party: 'payer', entityType: 'PERSONAL', fields: ['first_name', 'last_name'] },
  { party: 'payer', entityType: 'COMPANY', fields: ['company_name'] },
];

export interface RequirementContext {
  readonly method: PayoutMethod;
  /** The beneficiary bank's country, once known. */
  readonly country?: string | undefined;
  readonly entityType?: EntityType | undefined;
}

/** The first field `party` lacks, as a path relative to it; null when it has them all. */
export function missingField(party: Requirement['party'], context: RequirementContext, has: (path: string) => boolean): string | null {
  for (const row of REQUIREMENTS) {
    if (row.party !== party) continue;
    if (row.method && row.method !== context.method) continue;
    if (row.country && row.country !== context.country) continue;
    if (row.entityType && row.entityType !== context.entityType) continue;
    const missing = row.fields.find((field) => !has(field));
    if (missing) return missing;
  }
  return null;
}
