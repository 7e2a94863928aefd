// The statements one card authorisation issues (claim, velocity, blocklist, then the outcome
// transaction: lock, update, ledger journal, outbox event), sent as raw SQL through node-postgres.
// The benchmark's yardstick: the gateway's rate over HTTP is compared with this one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const id = (prefix: string) => prefix + randomBytes(13).toString('hex').toUpperCase().slice(0, 26);

export async function rawAuthorisation(pool: pg.Pool, accountId: string, merchantId: string, n: number): Promise<void> {
  const paymentId = id('T');
  const fingerprint = randomBytes(32).toString('base64url');
  const since = new Date(Date.now() - 3_600_000);
  await pool.query(
    `INSERT INTO payments (id, account_id, merchant_id, order_no, kind, payment_method, status, amount, currency, request_fingerprint, request,
       card_brand, card_bin, card_last4, card_length, card_fingerprint, connector)
     VALUES ($1, $2, $3, $4, 'card', 'card', 'processing', 1000, 'USD', $5, $6, 'VISA', '424242', '4242', 16, $7, 'simulator')
     ON CONFLICT (account_id, order_no) DO NOTHING RETURNING *`,
    [paymentId, accountId, merchantId, `RAW-${n}-${paymentId}`, fingerprint, JSON.stringify({ order_no: `RAW-${n}`, currency: 'USD', amount: '10.00' }), fingerprint],
  );
  await pool.query(
    `SELECT (SELECT count(*)::int FROM (SELECT 1 FROM payments WHERE card_fingerprint = $1 AND created_at >= $2 AND id <> $3 LIMIT $4) AS seen) AS card,
            NULL::int AS email, NULL::int AS ip`,
    [fingerprint, since, paymentId, 20],
  );
  await pool.query(
    `SELECT DISTINCT kind FROM risk_blocklist WHERE (account_id IS NULL OR account_id = $1) AND ((kind = $2 AND value = $3) OR (kind = $4 AND value = $5))`,
    [accountId, 'card', fingerprint, 'bin', '424242'],
  );
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT * FROM payments WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, paymentId]);
    await client.query(
      `UPDATE payments SET status = 'captured', captured_amount = 1000, connector_reference = $1, action_url = NULL, result_code = '0000',
         result_message = 'Success', risk_score = 0, risk_action = 'accept', risk_reasons = $2, updated_at = now() WHERE id = $3 RETURNING *`,
      [`sim_${paymentId}`, JSON.stringify([{ name: 'blocklist', status: 'pass' }]), paymentId],
    );
    const journal = id('J');
    await client.query(
      `INSERT INTO ledger_entries (journal_id, account_id, book, kind, currency, amount, payment_id, reference_id)
       VALUES ($1, $2, 'processor_receivable', 'capture', 'USD', 1000, $3, NULL), ($1, $2, 'merchant_balance', 'capture', 'USD', -1000, $3, NULL)`,
      [journal, accountId, paymentId],
    );
    await client.query(`INSERT INTO events (id, account_id, type, payment_id, payload, notify_url) VALUES ($1, $2, 'payment.captured', $3, $4, NULL)`, [
      id('EV'),
      accountId,
      paymentId,
      JSON.stringify({ notify_type: 'payment.captured', transaction_id: paymentId }),
    ]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}
