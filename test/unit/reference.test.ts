// docs/reference/ is generated from the code's own tables: it must be what they give today.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { referencePages } from '../../scripts/reference/pages.ts';

const dir = new URL('../../docs/reference/', import.meta.url);
const pages = referencePages();

it.each([...pages.keys()])('docs/reference/%s is what the code gives (run `npm run reference` after changing a table)', (name) => {
  expect(readFileSync(new URL(name, dir), 'utf8')).toBe(pages.get(name));
});

it('holds no page the generator does not write', () => {
  expect(readdirSync(dir).sort()).toEqual([...pages.keys()].sort());
});

it('lists the tables the gateway checks against', () => {
  expect(pages.get('currency-codes.md')).toMatch(/\| `JPY` \| Yen \| 0 \|/);
  expect(pages.get('currency-codes.md')).toMatch(/\| `KWD` \| Kuwaiti Dinar \| 3 \|/);
  expect(pages.get('currency-codes.md')).not.toContain('`XAU`');
  expect(pages.get('country-codes.md')).toMatch(/\| `BR` \| BRA \| Brazil \|/);
  expect(pages.get('test-cards.md')).toContain('| `4000000000009995` | declined: insufficient funds | `0` `2002:Declined: insufficient funds` |');
});
