// The sandbox's payout rail. createPayout accepts a payout (status `processing`, with a reference)
// and payoutStatus then answers its outcome. Stateless, as every connector: the outcome is chosen
// by the beneficiary's bank account name and carried in the reference. docs/payouts.md lists the
// sandbox beneficiaries:
//   "Sandbox Account Closed" · "Sandbox Invalid Account" · "Sandbox Name Mismatch" ·
//   "Sandbox Compliance Reject" · "Sandbox Bank Reject" → FAILED with that failure type;
//   "Sandbox Returned" → COMPLETED, then RETURNED when asked again; anyone else → COMPLETED.
import { ok, type PayoutOutcome, type PayoutPort } from '../port.ts';

const FAILING: Readonly<Record<string, { failureType: string; failureReason: string }>> = {
  'sandbox account closed': { failureType: 'ACCOUNT_CLOSED', failureReason: "the beneficiary's account is closed" },
  'sandbox invalid account': { failureType: 'INVALID_ACCOUNT', failureReason: 'no such account at the beneficiary bank' },
  'sandbox name mismatch': { failureType: 'BENEFICIARY_NAME_MISMATCH', failureReason: "the account name does not match the bank's records" },
  'sandbox compliance reject': { failureType: 'COMPLIANCE_REJECTED', failureReason: 'refused by compliance screening' },
  'sandbox bank reject': { failureType: 'REJECTED_BY_BANK', failureReason: "refused by the beneficiary's bank" },
};
const RETURNED = 'sandbox returned';

/** The scenario's key: the account name, lower case, single spaces. */
function scenarioOf(beneficiary: Readonly<Record<string, unknown>>): string {
  const details = beneficiary.bank_details as Record<string, unknown> | undefined;
  const name = typeof details?.account_name === 'string' ? details.account_name : '';
  const key = name.trim().toLowerCase().replace(/\s+/g, ' ');
  return FAILING[key] || key === RETURNED ? key.replace(/ /g, '-') : 'pay';
}

function outcomeOf(reference: string): PayoutOutcome {
  const scenario = reference.split('_')[1] ?? 'pay';
  const failing = FAILING[scenario.replace(/-/g, ' ')];
  if (failing) return { status: 'failed', reference, ...failing };
  if (scenario.replace(/-/g, ' ') === RETURNED) return { status: 'returned', reference, failureReason: 'the beneficiary bank sent the payment back' };
  return { status: 'completed', reference };
}

export const simulatedPayouts: PayoutPort = {
  name: 'simulator',
  createPayout: async (request) => ok({ status: 'processing', reference: `simpo_${scenarioOf(request.beneficiary)}_${request.payoutId}` }),
  payoutStatus: async (request) => ok(request.reference ? outcomeOf(request.reference) : { status: 'processing', reference: `simpo_pay_${request.payoutId}` }),
};
