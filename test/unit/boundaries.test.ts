// The house's floors stay apart: pure domain code imports no infrastructure, use cases never
// reach into HTTP, and the SDK a merchant imports carries nothing of the server.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url);
const files = (dir: string) =>
  readdirSync(new URL(dir, SRC), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => `${dir}${f}`);
const importsOf = (file: string) => [...readFileSync(new URL(file, SRC), 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!);

describe('dependency boundaries', () => {
  it.each(files('domain/'))('%s imports only the domain and libraries', (file) => {
    const local = importsOf(file).filter((spec) => spec.startsWith('.'));
    const outside = local.filter((spec) => !new URL(spec, new URL(file, SRC)).href.startsWith(new URL('domain/', SRC).href));
    expect(outside).toEqual([]);
  });

  it.each(files('app/'))('%s does not import the HTTP layer', (file) => {
    expect(importsOf(file).filter((spec) => spec.includes('/http/'))).toEqual([]);
  });

  it.each(files('sdk/'))('%s imports only the domain signature and libraries', (file) => {
    const local = importsOf(file).filter((spec) => spec.startsWith('.'));
    expect(local.filter((spec) => !['../domain/signature.ts', './client.ts'].includes(spec))).toEqual([]);
  });
});
