// Every per-order code /v1/capture, /v1/cancel, /v1/review and /v1/refund answer is listed in the
// "Per-order codes" of the operation's page in docs/api: a merchant's integration maps codes from
// those lists, and a code it never saw there is one it cannot handle. Each refusal is reached
// through the HTTP interface (declined, authorised, captured, cancelled payments; a lost processor
// answer for pending; a malformed amount).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { cancel, capture, lost, orderOf, pay, scriptedProcessor, single, type BatchList, type Txn } from '../support/lifecycle.ts';

const REVIEW_CARD = '4000000000004954';
const DECLINED_CARD = '4000000000000002';
const UNKNOWN = 'T01KAQZ0000000000000000000';

const processor = scriptedProcessor();
let gw: TestGateway;
let auto: SignedClient;
let manual: SignedClient;

beforeAll(async () => {
  gw = await startTestGateway({ connectors: processor.connectors });
  auto = await gw.merchant();
  manual = await gw.merchant({ captureMode: 'manual' });
});
afterAll(() => gw?.close());

/** The codes the "Per-order codes" paragraph of docs/api/<page>.md lists (`4001`–`4004` and `4001`/`4002` expanded). */
function documentedCodes(page: string): Set<string> {
  const text = readFileSync(new URL(`../../docs/api/${page}.md`, import.meta.url), 'utf8');
  const paragraph = /Per-order codes:([\s\S]*?)\n\n/.exec(text)?.[1];
  if (!paragraph) throw new Error(`docs/api/${page}.md has no "Per-order codes" paragraph`);
  const codes = new Set<string>();
  for (const [, from, to] of paragraph.matchAll(/`(\d{4})`(?:\s*[–-]\s*`(\d{4})`)?/g)) {
    for (let code = Number(from); code <= Number(to ?? from); code++) codes.add(String(code));
  }
  return codes;
}

/** The code of one order's answer: the part of error_message before the colon. */
async function codeOf(client: SignedClient, list: BatchList, order: Record<string, unknown>): Promise<string> {
  const entry = await single(client, list, order);
  return String(entry.error_message).split(':')[0]!;
}

const unknown = (txn: Txn) => ({ ...txn, transaction_id: UNKNOWN });
const otherCurrency = (txn: Txn) => ({ ...txn, currency: 'EUR' });
const otherAmount = (txn: Txn) => ({ ...txn, amount: '9.99' });
const tooPrecise = (txn: Txn) => ({ ...txn, amount: '10.001' });

describe('per-order codes and the docs/api pages', () => {
  it('review: every code its orders answer is listed in docs/api/review.md', async () => {
    const flag = { review_flag: '1' };
    const held = await pay(auto, { card: REVIEW_CARD });
    const declined = await pay(auto, { card: DECLINED_CARD });
    const authorised = await pay(manual);
    const answered = [
      await codeOf(auto, 'review_orders', orderOf(unknown(held), flag)),
      await codeOf(auto, 'review_orders', orderOf(otherCurrency(held), flag)),
      await codeOf(auto, 'review_orders', orderOf(otherAmount(held), flag)),
      await codeOf(auto, 'review_orders', orderOf(tooPrecise(held), flag)),
      await codeOf(auto, 'review_orders', orderOf(held, { review_flag: '2' })),
      await codeOf(auto, 'review_orders', orderOf(declined, flag)),
      await codeOf(manual, 'review_orders', orderOf(authorised, flag)),
    ];
    processor.script.capture = lost;
    try {
      answered.push(await codeOf(auto, 'review_orders', orderOf(held, flag)));
    } finally {
      delete processor.script.capture;
    }
    expect(answered).toEqual(['5001', '5002', '5003', '4003', '4002', '5004', '5011', '1000']);
    const listed = documentedCodes('review');
    expect(answered.filter((code) => !listed.has(code))).toEqual([]);
  });

  it('cancel: every code its orders answer is listed in docs/api/cancel.md', async () => {
    const authorised = await pay(manual);
    const declined = await pay(manual, { card: DECLINED_CARD });
    const captured = await pay(auto);
    const cancelled = await pay(manual);
    expect((await cancel(manual, cancelled)).cancel_status).toBe('1');
    const answered = [
      await codeOf(manual, 'cancel_orders', orderOf(unknown(authorised))),
      await codeOf(manual, 'cancel_orders', orderOf(otherCurrency(authorised))),
      await codeOf(manual, 'cancel_orders', orderOf(otherAmount(authorised))),
      await codeOf(manual, 'cancel_orders', orderOf(tooPrecise(authorised))),
      await codeOf(manual, 'cancel_orders', orderOf(declined)),
      await codeOf(manual, 'cancel_orders', orderOf(cancelled)),
      await codeOf(auto, 'cancel_orders', orderOf(captured)),
    ];
    processor.script.cancel = lost;
    try {
      answered.push(await codeOf(manual, 'cancel_orders', orderOf(authorised)));
      // The void just claimed is pending: another cancel of it is refused while it is.
      answered.push(await codeOf(manual, 'cancel_orders', orderOf(authorised)));
    } finally {
      delete processor.script.cancel;
    }
    expect(answered).toEqual(['5001', '5002', '5003', '4003', '5004', '5007', '5008', '1000', '5012']);
    const listed = documentedCodes('cancel');
    expect(answered.filter((code) => !listed.has(code))).toEqual([]);
  });

  it('capture and refund: every code their orders answer is listed in docs/api/capture.md and refund.md', async () => {
    const authorised = await pay(manual);
    const captured = await pay(auto);
    const capturing = [
      await codeOf(manual, 'capture_orders', orderOf(unknown(authorised))),
      await codeOf(manual, 'capture_orders', orderOf(authorised, { amount: '10.01' })),
      await codeOf(manual, 'capture_orders', orderOf(tooPrecise(authorised))),
      await codeOf(auto, 'capture_orders', orderOf(captured)),
    ];
    expect((await capture(manual, authorised)).capture_status).toBe('1');
    expect(capturing).toEqual(['5001', '5006', '4003', '5005']);
    const refunding = [
      await codeOf(auto, 'refund_orders', orderOf(otherAmount(captured), { refund_amount: '1.00' })),
      await codeOf(manual, 'refund_orders', orderOf(await pay(manual), { refund_amount: '1.00' })),
      await codeOf(auto, 'refund_orders', orderOf(captured, { refund_amount: '10.01' })),
      await codeOf(auto, 'refund_orders', orderOf(captured, { refund_amount: '0.001' })),
      await codeOf(auto, 'refund_orders', orderOf(captured, { refund_amount: '1.00', refund_reason: 'sandbox_settle_later' })),
    ];
    expect(refunding).toEqual(['5003', '5009', '5010', '4003', '1000']);
    const capturesListed = documentedCodes('capture');
    const refundsListed = documentedCodes('refund');
    expect(capturing.filter((code) => !capturesListed.has(code))).toEqual([]);
    expect(refunding.filter((code) => !refundsListed.has(code))).toEqual([]);
  });
});
