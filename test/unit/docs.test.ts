// The documentation tables are checked against the code they describe.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODES, type CodeDef } from '../../src/domain/errors.ts';

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
