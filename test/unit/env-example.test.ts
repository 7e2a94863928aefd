// .env.example lists every setting src/config.ts reads, and nothing it does not read; its values
// are accepted by the configuration itself.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.ts';

const entries = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z_]+=/.test(line))
  .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);

it('lists every variable the configuration reads, once', () => {
  expect(entries.map(([name]) => name).sort()).toEqual([...CONFIG_VARIABLES].sort());
});

it('holds values the configuration accepts, which are its defaults', () => {
  const config = loadConfig(Object.fromEntries(entries));
  expect(config).toEqual(loadConfig({}));
});

it('knows every variable src/config.ts names, also outside its schema', () => {
  const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
  const named = new Set([...source.matchAll(/\b(?:env|relevant)\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
  expect(named.size).toBeGreaterThan(5);
  for (const name of named) expect(CONFIG_VARIABLES).toContain(name);
});
