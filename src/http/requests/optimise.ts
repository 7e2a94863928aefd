// The optimise request (/v1/optimisePaymentMethods, docs/api/optimise.md) and its parsing into
// the use case's query: the amount as Money, the billing country, the device's class.
import Type, { type Static } from 'typebox';
import { deviceClass, type OptimiseQuery } from '../../app/optimise/optimise.ts';
import { checkAmount, checkCountry, checkCurrency, compile, Country, CurrencyCode, Decimal, Text } from './validation.ts';

export const OptimiseRequest = Type.Object({
  merchant_id: Text({ max: 32 }),
  account_id: Text({ max: 32 }),
  currency: CurrencyCode,
  amount: Decimal,
  billing_country: Type.Optional(Country),
  device_type: Type.Optional(Text({ max: 32 })),
  encryption_data: Text({ max: 128 }),
});
export const optimiseRequest = compile(OptimiseRequest);
export type OptimiseBody = Static<typeof OptimiseRequest>;

export function optimiseQuery(body: OptimiseBody): OptimiseQuery {
  const currency = checkCurrency(body.currency);
  const minor = checkAmount(body.amount, currency);
  const country = body.billing_country ? checkCountry(body.billing_country, 'billing_country') : undefined;
  const device = body.device_type ? deviceClass(body.device_type) : undefined;
  return { amount: { minor, currency }, ...(country ? { country } : {}), ...(device ? { device } : {}) };
}
