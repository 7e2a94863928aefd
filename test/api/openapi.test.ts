// GET /openapi.json serves the checked-in description, unsigned and without credentials.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

it('serves docs/openapi.json at GET /openapi.json', async () => {
  const answer = await gw.gateway.server.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(answer.statusCode).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.body).toBe(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
});
