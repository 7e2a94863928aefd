// The examples of the lifecycle operations' pages are real signed requests and answers: each
// JSON example verifies with the documented secret key.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verify } from '../../src/domain/signature.ts';

const SECRET = 'sk_test_4f3c2b1a';
const PAGES = ['capture', 'review', 'cancel', 'refund', 'query', 'refund-search'];

describe.each(PAGES)('docs/api/%s.md', (page) => {
  const text = readFileSync(new URL(`../../docs/api/${page}.md`, import.meta.url), 'utf8');
  const examples = [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);

  it('has a signed request and its answer', () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examples.some((e) => 'return_status' in e)).toBe(true);
  });

  it('signs every example with the documented key', () => {
    for (const example of examples) expect(verify(example as never, SECRET)).toBe(true);
  });
});
