// POST /v1/payout: a payout to a beneficiary, paid from the account's available balance
// (docs/api/payout.md, docs/payouts.md). Parse, run the use case, answer the payout as recorded.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { createPayout, recordedRepeat } from '../../app/payouts/create.ts';
import type { AppError } from '../../domain/errors.ts';
import { payoutAnswer } from '../encoders/payout.ts';
import { sendAnswer, signingOf, textField, type Operation } from '../operation.ts';
import { PayoutRequest, payoutCommand, payoutRequest, repeatKey } from '../requests/payout.ts';

export const payoutOperation: Operation = {
  name: 'payout',
  lists: new Set(['beneficiary.person_documents', 'beneficiary.person_documents.labels']),
  format: 'json',
  schema: PayoutRequest,
  errorAnswer: (body: Record<string, unknown>, error: AppError) => ({
    merchant_id: textField(body, 'merchant_id'),
    account_id: textField(body, 'account_id'),
    request_id: textField(body, 'request_id'),
    return_status: '0',
    return_message: error.info,
  }),
};

export function payoutRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/payout', { config: { operation: payoutOperation } }, async (request, reply) => {
    const { account } = signingOf(request);
    let command;
    try {
      command = payoutCommand(payoutRequest.parse(request.body), deps.clock.now());
    } catch (error) {
      // A retry of a payout recorded before a check refusing it was added: answered with the payout.
      const key = repeatKey(request.body as Record<string, unknown>);
      const recorded = key && (await recordedRepeat(deps, account, key.requestId, key));
      if (recorded) return sendAnswer(reply, 200, payoutAnswer(recorded));
      throw error;
    }
    return sendAnswer(reply, 200, payoutAnswer(await createPayout(deps, account, command)));
  });
}
