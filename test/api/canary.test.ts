// A card number or CVC never reaches a log line, an answer, an event or a stored row in clear
// (docs/operations.md, Logs). Drive every test card and the error paths through every format, then search.
// No log line carries a request field's value at all: not on a refusal, not on a database error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/connectors/simulator/cards.ts';
import { cardPayment, freshCard } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import type { Answer, SignedClient } from '../support/client.ts';

let gw: TestGateway;
let shop: SignedClient;
const answers: Answer[] = [];
const pans = new Set<string>();
// CVCs that cannot occur by accident in ids, amounts or timestamps of this test.
const CVC3 = '917';
const CVC4 = '8263';
// Request values that must never reach a log line (they are stored and echoed, as they should be).
const NAME = 'Canarywyn';
const EMAIL = 'canary@example.com';
/** Card numbers typed where no card belongs: into `note`, and into a field no operation defines. */
const IN_NOTE = freshCard('453201');
const IN_UNKNOWN = freshCard('542418');
let faulted: Answer;

beforeAll(async () => {
  gw = await startTestGateway({ env: { LOG_LEVEL: 'trace' } });
  shop = await gw.merchant({ rateLimitPerSecond: 10_000 });
  const formats = ['json', 'form', 'xml'] as const;
  const send = async (body: Record<string, unknown>, format: (typeof formats)[number]) => {
    answers.push(await shop.post('/v1/authorise', body, { format }));
  };
  const fresh = freshCard();
  for (const card of [...TEST_CARDS.map((c) => c.number), fresh]) {
    pans.add(card);
    const cvc = card.startsWith('37') ? CVC4 : CVC3;
    for (const format of formats) {
      await send(cardPayment(shop.ids, { card, security_code: cvc, token_flag: '1', shopper_email: 'canary@example.com' }), format);
    }
  }
  const stored = answers.find((a) => a.body.token_id)!;
  await send({ ...cardPayment(shop.ids), card: undefined, expiration_month: undefined, expiration_year: undefined, security_code: undefined, token_id: stored.body.token_id }, 'json');
  // Refusals that carry the card: bad CVC length, expired, Luhn failure, bad signature, conflict.
  await send(cardPayment(shop.ids, { security_code: '12' }), 'json');
  await send(cardPayment(shop.ids, { security_code: CVC3, expiration_year: '2020' }), 'xml');
  await send(cardPayment(shop.ids, { card: '4111111111111112', security_code: CVC3 }), 'form');
  await send({ ...cardPayment(shop.ids, { security_code: CVC3 }), encryption_data: 'ab'.repeat(32) }, 'json');
  const original = cardPayment(shop.ids, { security_code: CVC3 });
  await send(original, 'json');
  await send({ ...original, amount: '1.00' }, 'json');
  pans.add('4111111111111112');
  // Card numbers in free text and in an unknown field, through every format.
  pans.add(IN_NOTE).add(IN_UNKNOWN);
  for (const format of formats) {
    await send(cardPayment(shop.ids, { security_code: CVC3, first_name: NAME, note: `card ${IN_NOTE} thanks` }), format);
    await send(cardPayment(shop.ids, { security_code: CVC3, first_name: NAME, memo: IN_UNKNOWN }), format);
  }
  // A card number typed as a field's name, refused (given twice) before any credential is checked.
  const asName = freshCard('401288');
  pans.add(asName);
  answers.push(await shop.postRaw('/v1/authorise', `merchant_id=${shop.ids.merchant_id}&${asName}=1&${asName}=2`));
  // The same as a name in a body whose signature is wrong: the sandbox's refusal shows what the
  // gateway signed (docs/signing.md), at the top and nested.
  const signedAsName = freshCard('401288');
  pans.add(signedAsName);
  await send({ ...cardPayment(shop.ids, { security_code: CVC3 }), [signedAsName]: '1', subscription: { [signedAsName]: '2' }, encryption_data: 'ab'.repeat(32) }, 'json');
  // A database error on the payment's insert: its message and detail carry the row and the
  // query's parameters; the 500's log line must carry neither.
  await gw.database.query(`ALTER TABLE payments ADD CONSTRAINT canary_fault CHECK (request->>'first_name' IS DISTINCT FROM '${NAME}x')`);
  try {
    faulted = await shop.post('/v1/authorise', cardPayment(shop.ids, { security_code: CVC3, first_name: `${NAME}x`, shopper_email: EMAIL, note: `card ${IN_NOTE}` }));
    answers.push(faulted);
  } finally {
    await gw.database.query('ALTER TABLE payments DROP CONSTRAINT canary_fault');
  }
});
afterAll(() => gw?.close());

async function everyRow(): Promise<string> {
  const tables = await gw.database.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  let dump = '';
  for (const { table_name } of tables) {
    const rows = await gw.database.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
    dump += rows.map((r) => `${table_name}: ${r.row}`).join('\n');
  }
  return dump;
}

describe('the PAN/CVC canary', () => {
  it('drove real traffic', () => {
    expect(answers.length).toBeGreaterThan(40);
    expect(answers.some((a) => a.body.result_info === '0000:Success')).toBe(true);
    expect(answers.some((a) => a.status === 400)).toBe(true);
    expect(answers.some((a) => a.status === 401)).toBe(true);
    expect(gw.logs.text.length).toBeGreaterThan(1000);
  });

  it('finds no card number and no CVC in any answer', () => {
    const text = answers.map((a) => a.raw).join('\n');
    for (const pan of pans) expect(text).not.toContain(pan);
    expect(text).not.toMatch(new RegExp(`[>"=]${CVC3}[<"&]|[>"=]${CVC4}[<"&]`));
    expect(text).toContain('411111******1111');
  });

  it('finds no card number and no CVC in the logs', () => {
    for (const pan of pans) expect(gw.logs.text).not.toContain(pan);
    // As a value (quoted, or after = or :), not as any number: "ms":917 in a log line is a duration.
    expect(gw.logs.text).not.toMatch(new RegExp(`"(${CVC3}|${CVC4})"|[=:]"?(${CVC3}|${CVC4})(&|"|$)`, 'm'));
  });

  it('logs a database error by its code, constraint and query name, and nothing of the request', () => {
    expect([faulted.status, faulted.body.result_info]).toEqual([500, '9999:Internal error']);
    const line = gw.logs.text.split('\n').find((l) => l.includes('"request failed"'));
    expect(line).toBeDefined();
    const logged = JSON.parse(line!) as { err: Record<string, unknown> & { cause?: Record<string, unknown> } };
    const fault = logged.err.cause ?? logged.err;
    expect(fault).toMatchObject({ code: '23514', constraint: 'canary_fault', table: 'payments' });
    expect(fault.query).toBe('claim_payment');
    expect(line).not.toMatch(/params|Failing row|message/i);
  });

  it('finds no request value in any log line: names, e-mail addresses, free text', () => {
    expect(gw.logs.text).toContain('"request failed"');
    for (const value of [NAME, EMAIL, 'thanks', 'ORD-']) expect(gw.logs.text).not.toContain(value);
  });

  it('finds no card number and no CVC in any row of any table, events included', async () => {
    const dump = await everyRow();
    expect(dump).toContain('canary@example.com'); // the dump does see the rows
    for (const pan of pans) expect(dump).not.toContain(pan);
    expect(dump).not.toContain('security_code');
    expect(dump).not.toMatch(new RegExp(`"${CVC3}"|"${CVC4}"`));
  });
});
