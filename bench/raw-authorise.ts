// The statements one card authorisation issues (the claim with its risk facts, the outcome), with the texts the
// gateway uses, sent raw through node-postgres as named (prepared) statements. The benchmark's
// yardstick: the gateway's rate over HTTP is compared with this one.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { CLAIM_SQL, OUTCOME_SQL } from '../src/db/repositories/payments.ts';

const id = (prefix: string) => prefix + randomBytes(13).toString('hex').toUpperCase().slice(0, 26);
const REASONS = JSON.stringify([{ name: 'blocklist', status: 'pass' }, { name: 'velocity_card', status: 'pass' }]);

export async function rawAuthorisation(pool: pg.Pool, accountId: string, merchantId: string): Promise<void> {
  const paymentId = id('T');
  const fingerprint = randomBytes(32).toString('base64url');
  const orderNo = `RAW-${paymentId}`;
  await pool.query({
    name: 'claim_payment',
    text: CLAIM_SQL,
    values: [paymentId, accountId, merchantId, orderNo, 'card', 'card', 1000, 'USD', fingerprint,
      JSON.stringify({ order_no: orderNo, currency: 'USD', amount: '10.00' }), 'VISA', '424242', '4242', 16, fingerprint, null, null, null, null, 'simulator',
      accountId, new Date(Date.now() - 3_600_000), paymentId, 20, fingerprint, 50, null, 100, null, '424242', null],
  });
  const journal = id('J');
  await pool.query({
    name: 'write_payment_outcome',
    text: OUTCOME_SQL,
    values: ['captured', 1000, `sim_${paymentId}`, null, '0000', 'Success', 0, 'accept', REASONS, null, null, paymentId, 0,
      [journal, journal], ['processor_receivable', 'merchant_balance'], ['capture', 'capture'], [1000, -1000],
      id('EV'), 'payment.captured', JSON.stringify({ notify_type: 'payment.captured', transaction_id: paymentId }),
      null, null, null, null, null, null, null, null, null, null],
  });
}
