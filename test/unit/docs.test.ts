// The documentation tables are checked against the code they describe.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODES, type CodeDef } from '../../src/domain/errors.ts';
import { decodeBody } from '../../src/http/body/decode.ts';
import { verify } from '../../src/domain/signature.ts';

const doc = (path: string) => readFileSync(new URL(`../../docs/${path}`, import.meta.url), 'utf8');

describe('docs/codes.md', () => {
  const table = doc('codes.md');
  it.each(Object.entries(CODES))('lists %s with its code, message and HTTP status', (name, def: CodeDef) => {
    expect(table).toContain(`| \`${def.code}\` | ${def.message} | ${def.http ?? 200} | \`${name}\` |`);
  });

  it('lists no code the catalogue lacks', () => {
    const documented = [...table.matchAll(/^\| `(\d{4})` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.values(CODES).map((d) => d.code).sort());
  });

  it('gives each code one meaning', () => {
    const codes = Object.values(CODES).map((d) => d.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('docs/api/README.md', () => {
  // The statuses a refusal can have, each in the operation's own format: the page lists them all.
  const statuses = [...new Set(Object.values(CODES).map((def: CodeDef) => def.http ?? 200))].filter((http) => http !== 200).sort();
  it.each(statuses)('says a refusal with HTTP %i comes in the operation\'s format', (http) => {
    const sentence = /^Refusals \(([^)]*)\) come in the operation's own format/m.exec(doc('api/README.md'))?.[1] ?? '';
    expect(sentence.split(', ')).toContain(String(http));
  });
});

describe('signed examples in docs/', () => {
  const EXAMPLE_KEY = 'sk_test_4f3c2b1a';
  // Every list field any example may hold, so one-entry XML lists read as lists.
  const LISTS = new Set([
    'risk_reasons', 'fraud_check_result', 'capture_orders', 'review_orders', 'cancel_orders', 'refund_orders', 'orders_list',
    'cart_items', 'account_owner', 'total_discount', 'additional_information',
  ]);
  const files = readdirSync(new URL('../../docs/', import.meta.url), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  const blocks = files.flatMap((file) =>
    [...doc(file).matchAll(/```(json|xml|text)\n([\s\S]*?)```/g)]
      .filter((m) => m[2]!.includes('encryption_data') && !/^\s*(\/\/|#)/.test(m[2]!))
      .map((m, i) => [`${file} #${i + 1} (${m[1]})`, m[2]!] as const),
  );

  it('finds the examples', () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it.each(blocks)('%s verifies with the example key', (_name, text) => {
    const body = decodeBody(Buffer.from(text), LISTS);
    expect(verify(body, EXAMPLE_KEY)).toBe(true);
  });
});

describe('docs/notifications.md example bodies', () => {
  // "What is sent" says which values are not text: notify_time everywhere, and in payout
  // notifications the integer amounts and the nested beneficiary. Each example body keeps to it.
  const page = doc('notifications.md');
  const whatIsSent = page.slice(page.indexOf('## What is sent'), page.indexOf('## Event types'));
  const PAYOUT_NON_TEXT = ['amount_beneficiary_receives', 'amount_payer_pays', 'beneficiary', 'fee_amount', 'notify_time'];
  const bodies = [...page.matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => JSON.parse(m[1]!) as Record<string, unknown>)
    .filter((body) => typeof body.notify_type === 'string')
    .map((body) => [body.notify_type as string, body] as const);

  it('finds the examples, payouts among them', () => {
    expect(bodies.filter(([type]) => type.startsWith('payout.')).length).toBeGreaterThan(0);
    expect(bodies.filter(([type]) => !type.startsWith('payout.')).length).toBeGreaterThan(10);
  });

  it.each(bodies)('%s has text values except those the page names', (type, body) => {
    const nonText = Object.keys(body).filter((key) => typeof body[key] !== 'string').sort();
    expect(nonText).toEqual(type.startsWith('payout.') ? PAYOUT_NON_TEXT : ['notify_time']);
  });

  it('names each value that is not text', () => {
    for (const field of PAYOUT_NON_TEXT) expect(whatIsSent).toContain(`\`${field}\``);
    expect(whatIsSent).not.toMatch(/^Every value except `notify_time` is text/m);
  });
});

describe('the repository stands on its own', () => {
  // Docs and comments cite only what the repository holds: no product-decision sections or
  // specification documents kept elsewhere.
  const root = new URL('../../', import.meta.url);
  const files = ['docs', 'src', 'test'].flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, root), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md') || f.endsWith('.ts'))
      .map((f) => `${dir}/${f}`),
  );
  it.each(files)('%s cites no outside document', (file) => {
    const text = readFileSync(new URL(file, root), 'utf8');
    expect(text).not.toMatch(new RegExp(['decisions ' + '§', '\\bthe ' + 'seed\\b', '\\bseed' + "'s\\b", '\\(seed' + '[:)\\s]'].join('|'), 'i'));
  });
});
