// docs/payouts.md shows the requirements table as the code has it: this renders REQUIREMENTS
// and fails when the page's table is not that rendering (copy the expected table into the page).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { missingField, REQUIREMENTS, type Requirement } from './requirements.ts';

const code = (fields: readonly string[]) => fields.map((field) => `\`${field}\``).join(', ');

function required(row: Requirement): string {
  const alternatives = (row.oneOf ?? []).map(code).join('; or ');
  return [code(row.fields), alternatives].filter(Boolean).join(', and ');
}

function rendered(): string {
  const lines = ['| party | payment_method | bank_country_code | payment_currency | entity_type | required | also checked |', '|---|---|---|---|---|---|---|'];
  for (const row of REQUIREMENTS) {
    const cells = [row.party, row.method ? `\`${row.method}\`` : 'any', row.country ?? 'any', row.currency ?? 'any', row.entityType ? `\`${row.entityType}\`` : 'any', required(row), row.checked ?? ''];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

describe('the requirements table', () => {
  it('is the one docs/payouts.md shows', () => {
    const page = readFileSync(new URL('../../../docs/payouts.md', import.meta.url), 'utf8');
    expect(page.includes(`${rendered()}\n`), `docs/payouts.md should show:\n${rendered()}`).toBe(true);
  });

  it('asks each rail for its own fields, and for one of the alternatives', () => {
    const missing = (context: Parameters<typeof missingField>[1], fields: string[]) => missingField('bank_details', context, (field) => fields.includes(field));
    expect(missing({ method: 'LOCAL', country: 'US', currency: 'USD' }, ['account_number'])).toBe('bank_code');
    expect(missing({ method: 'LOCAL', country: 'BR', currency: 'BRL' }, ['account_number', 'bank_code'])).toBe('bank_branch');
    expect(missing({ method: 'LOCAL', country: 'GB', currency: 'GBP' }, ['iban'])).toBeNull();
    expect(missing({ method: 'LOCAL', country: 'GB', currency: 'GBP' }, ['account_number'])).toBe('bank_code');
    expect(missing({ method: 'LOCAL', country: 'FR', currency: 'EUR' }, ['account_number'])).toBe('iban');
    expect(missing({ method: 'SWIFT', country: 'DE', currency: 'EUR' }, ['swift_code', 'account_number'])).toBe('iban');
    expect(missing({ method: 'SWIFT', country: 'JP', currency: 'JPY' }, ['swift_code'])).toBe('account_number');
    expect(missing({ method: 'LOCAL', country: 'MX', currency: 'MXN' }, ['account_number'])).toBeNull();
  });
});
