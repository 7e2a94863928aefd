// The alternative payment methods the sandbox processor offers, what each needs, and how long an
// unpaid one waits. Each answers with an issuer page the shopper approves, declines or leaves
// (docs/apm.md); one bank, SBX009, is "offline" and declines at once, and one, SBX008, loses the
// answer to an approval (the gateway learns of it when it asks, at the payment's deadline).

import type { ApmMethod, Bank } from '../port.ts';

export type { ApmMethod, ApmType, PersonField } from '../port.ts';

export const SANDBOX_BANKS: readonly Bank[] = [
  { code: 'SBX001', name: 'Sandbox Bank' },
  { code: 'SBX002', name: 'Test Savings Bank' },
  { code: 'SBX008', name: 'Lost Answer Bank (the approval\'s answer is lost)' },
  { code: 'SBX009', name: 'Offline Bank (declines at once)' },
];
export const OFFLINE_BANK = 'SBX009';
export const LOST_ANSWER_BANK = 'SBX008';

export const SANDBOX_METHODS: readonly ApmMethod[] = [
  { name: 'sandbox_redirect', type: 'redirect', label: 'Sandbox redirect', needs: {}, ttlMinutes: 30 },
  {
    name: 'sandbox_bank',
    type: 'bank_redirect',
    label: 'Sandbox online banking',
    currencies: ['EUR', 'GBP', 'USD', 'BRL'],
    needs: { bankCode: true },
    ttlMinutes: 60,
  },
  {
    name: 'sandbox_voucher',
    type: 'voucher',
    label: 'Sandbox cash voucher',
    currencies: ['BRL', 'MXN', 'USD'],
    countries: ['BR', 'MX', 'US'],
    needs: { person: ['document_type', 'document_number', 'email'] },
    ttlMinutes: 3 * 24 * 60,
  },
  { name: 'sandbox_wallet', type: 'wallet', label: 'Sandbox wallet', needs: { shopperEmail: true }, ttlMinutes: 15 },
];

const BY_NAME = new Map(SANDBOX_METHODS.map((method) => [method.name, method]));

export function sandboxMethod(name: string): ApmMethod | undefined {
  return BY_NAME.get(name);
}
