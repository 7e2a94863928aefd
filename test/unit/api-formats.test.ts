// docs/api/README.md's table names every operation of the code, with the format it answers in.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CATALOGUE } from '../../src/http/catalogue.ts';

const table = readFileSync(new URL('../../docs/api/README.md', import.meta.url), 'utf8');
const rows = [...table.matchAll(/^\| \[`POST (\/v1\/\w+)`\]\(([\w.-]+)\)[^|]*\| ([^|]+) \|/gm)].map((m) => ({ path: m[1], doc: m[2], answer: m[3]! }));

it.each(CATALOGUE.map((entry) => [entry.path, entry] as const))('lists %s with its answer format and page', (path, entry) => {
  const row = rows.find((r) => r.path === path);
  expect(row).toBeDefined();
  expect(row!.doc).toBe(entry.doc);
  const format = path === '/v1/checkout' ? 'HTML' : entry.operation.format.toUpperCase();
  expect(row!.answer.startsWith(format)).toBe(true);
});

it('lists no operation the code lacks', () => {
  expect(rows.map((r) => r.path).sort()).toEqual(CATALOGUE.map((entry) => entry.path).sort());
});
