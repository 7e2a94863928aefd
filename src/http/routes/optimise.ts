// POST /v1/optimisePaymentMethods: the payment methods the account can offer for an order,
// ranked by approval rate on its own similar payments, with the figures (docs/api/optimise.md).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../app/context.ts';
import { WINDOW_DAYS, optimisePaymentMethods, type Optimised } from '../../app/optimise/optimise.ts';
import { OptimiseRequest, optimiseQuery, optimiseRequest, type OptimiseBody } from '../requests/optimise.ts';
import type { AppError } from '../../domain/errors.ts';
import { sendAnswer, signingOf, textField, type Operation } from '../operation.ts';

export const optimiseOperation: Operation = {
  name: 'optimisePaymentMethods',
  lists: new Set(),
  format: 'json',
  schema: OptimiseRequest,
  errorAnswer: (body: Record<string, unknown>, error: AppError) => ({
    merchant_id: textField(body, 'merchant_id'),
    account_id: textField(body, 'account_id'),
    return_status: '0',
    return_message: error.info,
  }),
};

export function optimiseRoutes(app: FastifyInstance, deps: Deps): void {
  app.post('/v1/optimisePaymentMethods', { config: { operation: optimiseOperation } }, async (request, reply) => {
    const { account } = signingOf(request);
    const body = optimiseRequest.parse(request.body);
    return sendAnswer(reply, 200, answer(account.merchantId, account.id, body, await optimisePaymentMethods(deps, account, optimiseQuery(body))));
  });
}

function answer(merchantId: string, accountId: string, body: OptimiseBody, result: Optimised): Record<string, unknown> {
  return {
    merchant_id: merchantId,
    account_id: accountId,
    currency: result.currency,
    amount: body.amount,
    billing_country: result.country ?? '',
    device_type: body.device_type ?? '',
    device_class: result.device ?? '',
    amount_band: `${result.amountBand[0]}-${result.amountBand[1]}`,
    window_days: String(WINDOW_DAYS),
    payment_methods: result.methods.map((method) => ({
      rank: String(method.rank),
      payment_method: method.paymentMethod,
      type: method.type,
      label: method.label,
      attempts: String(method.attempts),
      approved: String(method.approved),
      approval_rate: method.approvalRate === undefined ? '' : method.approvalRate.toFixed(4),
      basis: method.basis,
    })),
    return_status: '1',
    return_message: 'OK',
  };
}
