// The house's floors stay apart: pure domain code imports no infrastructure, use cases never
// reach into HTTP, and the SDK a merchant installs (packages/sdk) carries nothing of the server
// and needs nothing beyond Node's own modules.
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

  // Use cases take typed commands; the HTTP adapter parses the wire body into them (src/http/requests,
  // src/http/batch: the test above keeps src/app out of both). No use case declares a request
  // schema (TypeBox) or keeps a request parser of its own.
  it.each(files('app/'))('%s neither defines nor parses a wire body', (file) => {
    const parsing = (spec: string) =>
      spec === 'typebox' || spec.startsWith('typebox/') || ['/validation.ts', '/request.ts', '/request-fields.ts'].some((name) => spec.endsWith(name));
    expect(importsOf(file).filter(parsing)).toEqual([]);
  });

  const SDK = new URL('../../packages/sdk/', import.meta.url);
  const sdkFiles = readdirSync(new URL('src/', SDK), { encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it.each(sdkFiles)('packages/sdk/src/%s imports only its own modules and node:*', (file) => {
    const specs = [...readFileSync(new URL(`src/${file}`, SDK), 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]!);
    expect(specs.filter((spec) => !/^\.\/[a-z-]+\.js$/.test(spec) && !spec.startsWith('node:'))).toEqual([]);
  });

  it('packages/sdk has no runtime dependencies', () => {
    const manifest = JSON.parse(readFileSync(new URL('package.json', SDK), 'utf8')) as Record<string, unknown>;
    expect([manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies]).toEqual([undefined, undefined, undefined]);
  });

  // The sandbox lives behind the connector seam: only the simulator itself, the sandbox's own
  // pages and routes, and the registry that plugs it in may know it exists.
  const SANDBOX_PLACES = ['connectors/simulator/', 'web/pages/sandbox/', 'http/routes/sandbox.ts', 'connectors/registry.ts'];
  const everything = files('').filter((file) => !SANDBOX_PLACES.some((place) => file.startsWith(place)));
  it.each(everything)('%s does not import the sandbox simulator', (file) => {
    const simulator = new URL('connectors/simulator/', SRC).href;
    const local = importsOf(file).filter((spec) => spec.startsWith('.'));
    expect(local.filter((spec) => new URL(spec, new URL(file, SRC)).href.startsWith(simulator))).toEqual([]);
  });
});
