// The statements one card authorisation issues (the claim with its risk facts, the outcome), with the
// texts and parameter builders the gateway uses, sent raw through the engine's driver (node-postgres
// as named, prepared, statements; PGlite as it runs them for the gateway). The benchmark's yardstick: the gateway's rate over HTTP is compared with this one.
// Built from the same claimParams/outcomeParams as the gateway, so the two cannot drift apart.
// Between them, the sandbox processor's lookup of the charge's idempotency key
// (src/connectors/simulator/memory.ts), which the gateway's process sends for every sandbox
// authorisation since the simulator honours keys: the same statements as the gateway's process.
// Two ways to send them: `alone`, each authorisation's two statements on their own (what one
// authorisation needs of the database); `coalesced`, through the gateway's own coalescing of the
// statements that concurrent callers send in one turn (src/db/coalesce.ts), which is what the
// gateway sends, so the database's own rate for the gateway's statements.
import { randomBytes } from 'node:crypto';
import { CONNECTOR_TIMEOUT_SECONDS, processorTimers } from '../src/config.ts';
import { lostAnswersIn, RECALL_SQL, type LostAnswers } from '../src/connectors/simulator/memory.ts';
import type { Database } from '../src/db/client.ts';
import { journalRows } from '../src/db/repositories/ledger.ts';
import { claimParams, claimStatement, hotPath, OUTCOME_SQL, outcomeParams } from '../src/db/repositories/payments.ts';
import { captureEntries } from '../src/domain/ledger.ts';
import { PAYMENT_MACHINE } from '../src/domain/payment.ts';
import type { RiskReason } from '../src/domain/risk.ts';

const id = (prefix: string) => prefix + randomBytes(13).toString('hex').toUpperCase().slice(0, 26);
const REASONS: RiskReason[] = [
  { name: 'blocklist', status: 'pass' },
  { name: 'velocity_card', status: 'pass' },
];
const CAPTURED = PAYMENT_MACHINE.move('processing', 'captured');

export type RawSending = 'alone' | 'coalesced';

/** The simulator's memory of one database, coalescing its lookups as the gateway's simulator does. */
const memories = new WeakMap<Database, LostAnswers>();
function memoryOf(database: Database): LostAnswers {
  let memory = memories.get(database);
  if (!memory) memories.set(database, (memory = lostAnswersIn(database)));
  return memory;
}

export async function rawAuthorisation(database: Database, accountId: string, merchantId: string, sending: RawSending): Promise<void> {
  const hot = sending === 'coalesced' ? hotPath(database) : undefined;
  const paymentId = id('T');
  const fingerprint = randomBytes(32).toString('base64url');
  const orderNo = `RAW-${paymentId}`;
  const now = new Date();
  const claim = claimParams(
    {
      id: paymentId,
      accountId,
      merchantId,
      orderNo,
      kind: 'card',
      paymentMethod: 'card',
      amount: 1000,
      currency: 'USD',
      requestFingerprint: fingerprint,
      request: { order_no: orderNo, currency: 'USD', amount: '10.00' },
      connector: 'simulator',
      card: { brand: 'VISA', bin: '424242', last4: '4242', length: 16, fingerprint },
      now,
      wallNow: now,
      unknownAfterMs: processorTimers(CONNECTOR_TIMEOUT_SECONDS * 1000).unknownAfterMs,
    },
    { accountId, paymentId, since: new Date(now.getTime() - 3_600_000), velocity: { cardCap: 20, emailCap: 50, ipCap: 100 }, card: fingerprint, bin: '42424242' },
  );
  const alone = claimStatement(claim);
  await (hot ? hot.claim(claim) : database.query(alone.text, claim, alone.name));
  await (hot ? memoryOf(database).recall(paymentId) : database.query(RECALL_SQL, [paymentId], 'simulator_recall'));
  const outcome = outcomeParams({
    move: CAPTURED,
    now,
    wallNow: now,
    unknownAfterMs: processorTimers(CONNECTOR_TIMEOUT_SECONDS * 1000).unknownAfterMs,
    readVersion: 0,
    next: {
      id: paymentId,
      capturedAmount: 1000,
      connectorReference: `sim_${paymentId}`,
      actionUrl: null,
      resultCode: '0000',
      resultMessage: 'Success',
      riskScore: 0,
      riskAction: 'accept',
      riskReasons: REASONS,
      threedsResult: null,
      tokenId: null,
      networkTransactionId: `simnt_${paymentId}`,
      expiresAt: null,
    },
    ledger: journalRows('capture', captureEntries(1000), paymentId),
    event: { id: id('EV'), type: 'payment.captured', payload: { notify_type: 'payment.captured', transaction_id: paymentId } },
  });
  await (hot ? hot.outcome(outcome) : database.query(OUTCOME_SQL, outcome, 'write_payment_outcome'));
}
