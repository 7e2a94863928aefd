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

it("states each batch list's size limits, as the operations enforce them (4010 beyond)", async () => {
  const answer = await gw.gateway.server.app.inject({ method: 'GET', url: '/openapi.json' });
  const schemas = (JSON.parse(answer.body) as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }).components.schemas;
  const limits = Object.fromEntries(
    (
      [
        ['CaptureRequest', 'capture_orders'],
        ['ReviewRequest', 'review_orders'],
        ['CancelRequest', 'cancel_orders'],
        ['RefundRequest', 'refund_orders'],
      ] as const
    ).map(([schema, list]) => [list, [schemas[schema]!.properties[list]!.minItems, schemas[schema]!.properties[list]!.maxItems]]),
  );
  expect(limits).toEqual({ capture_orders: [1, 100], review_orders: [1, 100], cancel_orders: [1, 50], refund_orders: [1, 50] });
});
