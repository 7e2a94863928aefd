// The payout answer (docs/api/payout.md): the payout's fields (src/app/payouts/view.ts, which its
// notifications carry too), JSON, signed by sendAnswer.
import { payoutFields } from '../../app/payouts/view.ts';
import type { PayoutRow } from '../../db/schema.ts';

export function payoutAnswer(payout: PayoutRow): Record<string, unknown> {
  return payoutFields(payout);
}
