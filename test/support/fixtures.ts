import { randomUUID } from 'node:crypto';

export const orderNo = (prefix = 'ORD') => `${prefix}-${randomUUID()}`;

/** A direct card payment body for `ids`, approved unless overridden. */
export function cardPayment(ids: { merchant_id: string; account_id: string }, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...ids,
    order_no: orderNo(),
    currency: 'USD',
    amount: '10.00',
    card: '4111111111111111',
    expiration_month: '12',
    expiration_year: '2030',
    security_code: '123',
    ...overrides,
  };
}

/** Luhn-valid card numbers no test card list names: the simulator approves them. */
export function freshCard(prefix = '424242'): string {
  const digits = (prefix + String(Math.floor(Math.random() * 1e9)).padStart(9, '0')).slice(0, 15).split('').map(Number);
  const sum = digits
    .reverse()
    .map((d, i) => (i % 2 === 0 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d))
    .reduce((a, b) => a + b, 0);
  return digits.reverse().join('') + String((10 - (sum % 10)) % 10);
}
