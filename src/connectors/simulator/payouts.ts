// The sandbox's payout rail: a stub the payouts use case fills in (sandbox beneficiaries that
// fail, returns after completion). For now every payout completes at once.
import { ok, type PayoutPort } from '../port.ts';

export const simulatedPayouts: PayoutPort = {
  name: 'simulator',
  createPayout: async (request) => ok({ status: 'completed', reference: `sim_${request.payoutId}` }),
  payoutStatus: async (request) => ok({ status: 'completed', reference: request.reference ?? `sim_${request.payoutId}` }),
};
