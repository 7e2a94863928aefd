// The answer types name what the gateway answers: for each operation, every field of a real answer
// (at every depth) is a property of the SDK's type for it, and every property of the type is in
// the answer; likewise each kind of notification and its example body in docs/notifications.md.
// The types are read with the TypeScript compiler from packages/sdk/src/answers.ts and events.ts.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/cli/commands.ts';
import { orderNo } from '../../../test/support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { AcquiroClient } from '../src/index.ts';

const ANSWERS = new URL('../src/answers.ts', import.meta.url).pathname;
const EVENTS = new URL('../src/events.ts', import.meta.url).pathname;

/**
 * Every property path of each exported interface of answers.ts (`a`, `list[].b`, `obj.c`), and of
 * each kind of notification of events.ts, under each of its notify_type values.
 */
function typedPaths(): { answers: Map<string, Set<string>>; events: Map<string, Set<string>> } {
  const program = ts.createProgram([ANSWERS, EVENTS], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
  const checker = program.getTypeChecker();
  const paths = (type: ts.Type, prefix: string, out: Set<string>) => {
    for (const property of checker.getPropertiesOfType(type)) {
      const propertyType = checker.getNonNullableType(checker.getTypeOfSymbol(property));
      const entry = checker.isArrayType(propertyType) ? checker.getTypeArguments(propertyType as ts.TypeReference)[0]! : propertyType;
      const path = `${prefix}${property.name}`;
      out.add(path);
      if (entry.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && checker.getPropertiesOfType(entry).length > 0) paths(entry, checker.isArrayType(propertyType) ? `${path}[].` : `${path}.`, out);
    }
    return out;
  };
  const answers = new Map<string, Set<string>>();
  ts.forEachChild(program.getSourceFile(ANSWERS)!, (node) => {
    if (ts.isInterfaceDeclaration(node)) answers.set(node.name.text, paths(checker.getTypeAtLocation(node.name), '', new Set()));
  });
  const events = new Map<string, Set<string>>();
  ts.forEachChild(program.getSourceFile(EVENTS)!, (node) => {
    if (!ts.isTypeAliasDeclaration(node) || node.name.text !== 'Notification') return;
    for (const member of (checker.getTypeAtLocation(node.name) as ts.UnionType).types) {
      const kind = checker.getTypeOfSymbol(checker.getPropertyOfType(member, 'notify_type')!);
      for (const literal of kind.isUnion() ? kind.types : [kind]) events.set(String((literal as ts.StringLiteralType).value), paths(member, '', new Set()));
    }
  });
  return { answers, events };
}

/** The answer's own paths, lists' entries as `[]`. */
function answerPaths(node: unknown, prefix = '', out = new Set<string>()): Set<string> {
  for (const [name, value] of Object.entries(node as Record<string, unknown>)) {
    out.add(`${prefix}${name}`);
    const entries = Array.isArray(value) ? value : [value];
    for (const entry of entries) if (typeof entry === 'object' && entry !== null) answerPaths(entry, Array.isArray(value) ? `${prefix}${name}[].` : `${prefix}${name}.`, out);
  }
  return out;
}

let gw: TestGateway;
let client: AcquiroClient;
let types: Map<string, Set<string>>;
let events: Map<string, Set<string>>;
beforeAll(async () => {
  ({ answers: types, events } = typedPaths());
  gw = await startTestGateway();
  const url = await gw.gateway.server.app.listen({ port: 0, host: '127.0.0.1' });
  const { credentials } = await gw.merchant({ captureMode: 'manual' });
  const ids = ['--merchant-id', credentials.merchant_id, '--account-id', credentials.account_id];
  expect((await runCommand(['ips', 'add', ...ids, '--cidr', '127.0.0.1/32'], gw.gateway.deps)).exitCode).toBe(0);
  expect((await runCommand(['balance', 'topup', ...ids, '--currency', 'EUR', '--amount', '500.00'], gw.gateway.deps)).exitCode).toBe(0);
  client = new AcquiroClient({ baseUrl: url, merchantId: credentials.merchant_id, accountId: credentials.account_id, secretKey: credentials.secret_key });
}, 60_000);
afterAll(() => gw?.close());

/** `optional`: typed paths an answer may leave out (page and total come with a time window only). */
function expectTyped(typeName: string, answer: object, optional: readonly string[] = [], typed = types.get(typeName)) {
  expect(typed, typeName).toBeDefined();
  const answered = answerPaths(answer);
  const untyped = [...answered].filter((path) => !typed!.has(path));
  const unanswered = [...typed!].filter((path) => !answered.has(path) && !optional.includes(path));
  expect({ typeName, untyped, unanswered }).toEqual({ typeName, untyped: [], unanswered: [] });
}

/** A payout's optional fields the examples leave out: those of a request naming a COMPANY beneficiary by IBAN. */
function unsentPayoutFields(typed: Set<string>): string[] {
  const beneficiaryOptional = ['first_name', 'last_name', 'date_of_birth', 'address', 'additional_info', 'person_documents'].map((name) => `beneficiary.${name}`);
  return [...typed].filter(
    (path) =>
      /^(payer|swift_charge_option|beneficiary_id|client_data|fund_source|notify_url)\b/.test(path) ||
      beneficiaryOptional.some((name) => path.startsWith(name)) ||
      (path.startsWith('beneficiary.bank_details.') && !/\.(account_name|bank_country_code|account_currency|iban|local_clearing_system)$/.test(path)),
  );
}

describe('the notification types and docs/notifications.md', () => {
  const docs = readFileSync(new URL('../../../docs/notifications.md', import.meta.url), 'utf8');
  const examples = [...docs.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>).filter((body) => typeof body.notify_type === 'string');

  it('type every example body of every kind of event, field by field', () => {
    expect(new Set(examples.map((body) => body.notify_type))).toEqual(new Set(events.keys()));
    for (const body of examples) {
      const typed = events.get(String(body.notify_type))!;
      expectTyped(String(body.notify_type), body, String(body.notify_type).startsWith('payout.') ? unsentPayoutFields(typed) : [], typed);
    }
  });
});

describe('the answer types and the answers', () => {
  it('name the fields of every operation answer, at every depth', async () => {
    const card = { card: '4111111111111111', expiration_month: '12', expiration_year: '2030', security_code: '123' } as const;
    const paid = await client.authorise({ order_no: orderNo(), currency: 'EUR', amount: '30.00', ...card, subscription: { contract_name: 'Gold', contract_amount: '30.00', interval: 'month' } });
    expectTyped('PaymentAnswer', paid);
    const ref = { transaction_id: paid.transaction_id, order_no: paid.order_no, currency: 'EUR' };
    expectTyped('ApmAnswer', await client.authoriseApm({ order_no: orderNo(), currency: 'EUR', amount: '5.00', payment_method: 'sandbox_redirect', return_url: 'https://shop.example/back' }));
    expectTyped('CaptureAnswer', await client.capture([{ ...ref, amount: '30.00' }]));
    const refund = await client.refund([{ ...ref, amount: '30.00', refund_amount: '1.00', refund_reason: 'gift' }]);
    expectTyped('RefundAnswer', refund);
    const held = await client.authorise({ order_no: orderNo(), currency: 'EUR', amount: '7.00', ...card, card: '4000000000004954' });
    expectTyped('ReviewAnswer', await client.review([{ transaction_id: held.transaction_id, order_no: held.order_no, currency: 'EUR', amount: '7.00', review_flag: '1' }]));
    expectTyped('CancelAnswer', await client.cancel([{ transaction_id: held.transaction_id, order_no: held.order_no, currency: 'EUR', amount: '7.00' }]));
    expectTyped('QueryAnswer', await client.query({ transaction_id: [paid.transaction_id] }), ['page', 'total']);
    expectTyped('RefundSearchAnswer', await client.refundSearch({ transaction_id: [paid.transaction_id] }), ['page', 'total']);
    expectTyped('OptimiseAnswer', await client.optimisePaymentMethods({ currency: 'EUR', amount: '5.00' }));
    const beneficiary = { entity_type: 'COMPANY', company_name: 'Acme GmbH', bank_details: { account_name: 'Acme GmbH', bank_country_code: 'DE', account_currency: 'EUR', iban: 'DE89370400440532013000' } } as const;
    const payout = await client.payout({ request_id: crypto.randomUUID(), payment_currency: 'EUR', payment_amount: '10.00', payment_method: 'LOCAL', reason: 'Invoice', reference: 'INV-1', beneficiary });
    // The beneficiary's own optional fields, and the request's optional ones, come back only when sent.
    expectTyped('PayoutAnswer', payout, unsentPayoutFields(types.get('PayoutAnswer')!));
    expect(payout.beneficiary.bank_details.local_clearing_system).toBe('SEPA');
    expectTyped('CancelSubscriptionAnswer', await client.cancelSubscription({ recurring_id: paid.recurring_id, contract_name: 'Gold' }));
  });
});
