// A dispute (chargeback) the acquirer reported about a captured payment: the shopper's bank took
// the amount back (open), and gives it back if the merchant wins (reversed). The gateway records
// what the acquirer says; it decides nothing of the dispute itself. docs/chargebacks.md.
import { defineStateMachine } from './state-machine.ts';

export type DisputeStatus = 'open' | 'reversed';

export const DISPUTE_MACHINE = defineStateMachine('dispute', {
  initial: ['open'],
  next: { open: ['reversed'], reversed: [] } satisfies Record<DisputeStatus, readonly DisputeStatus[]>,
});

/** What the acquirer says happened to a dispute: opened (money taken back) or reversed (the merchant won it). */
export type DisputeStage = 'opened' | 'reversed';
