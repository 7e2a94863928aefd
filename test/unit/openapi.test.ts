// docs/openapi.json is generated from the code: it must be what the code generates today, and
// the code's catalogue must hold every signed route the server serves.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/http/catalogue.ts';
import { openApiDocument, openApiText } from '../../src/http/openapi.ts';

const root = new URL('../../', import.meta.url);

describe('docs/openapi.json', () => {
  it('is what the code generates (run `npm run openapi` after changing a request schema)', () => {
    expect(readFileSync(new URL('docs/openapi.json', root), 'utf8')).toBe(openApiText());
  });

  it('describes every POST /v1 route of src/http/routes', () => {
    const dir = new URL('src/http/routes/', root);
    const served = readdirSync(dir)
      .flatMap((file) => [...readFileSync(new URL(file, dir), 'utf8').matchAll(/app\.post(?:<[^>]*>)?\('(\/v1\/[^']+)'/g)].map((m) => m[1]!))
      .sort();
    expect(served.length).toBeGreaterThan(5);
    expect(CATALOGUE.map((entry) => entry.path).sort()).toEqual(served);
  });

  it('is OpenAPI 3.1 with the request schemas, required fields and patterns included', () => {
    const doc = openApiDocument() as any;
    expect(doc.openapi).toBe('3.1.0');
    const authorise = doc.components.schemas.AuthoriseRequest.anyOf[0];
    expect(authorise.required).toEqual(expect.arrayContaining(['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'encryption_data']));
    expect(authorise.properties.currency).toMatchObject({ type: 'string', pattern: '^[A-Z]{3}$', description: 'an ISO 4217 three-letter currency code' });
    expect(JSON.stringify(doc)).not.toContain('"hint"');
    const capture = doc.paths['/v1/capture'].post;
    expect(Object.keys(capture.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'application/xml']);
    expect(capture.parameters[0].name).toBe('Idempotency-Key');
    expect(doc.paths['/v1/authorise'].post.responses['200'].content).toHaveProperty('application/xml');
  });
});
