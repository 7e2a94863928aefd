// What the core takes from a connector's answer before a shopper or a merchant acts on it. The
// URL a connector names for the shopper's next step (a 3-D Secure challenge, an APM's page) goes
// to the merchant as redirect_url and into the hosted page: only an absolute http(s) one is
// taken. Another (javascript:, data:, a relative path) is the connector's fault: the payment fails
// as a processor error (2008), nothing charged (the shopper never acted), nothing handed on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connectors } from '../../src/app/context.ts';
import type { Connector } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import type { SignedClient } from '../support/client.ts';
import { cardPayment } from '../support/fixtures.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
let shop: SignedClient;
let other: SignedClient;
// The next step's URL the connector answers with (per test).
let actionUrl = '';

/** The simulator, except that every card payment asks for a challenge at `actionUrl`. */
function challengingConnector(): Connectors {
  const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
  const connector: Connector = {
    ...simulator,
    authorise: async (request) => ({ ok: true, value: { status: 'action_required', action: 'authenticate', reference: `acs_${request.paymentId}`, url: actionUrl } }),
  };
  return { get: (name) => (name === 'simulator' ? connector : undefined) };
}

beforeAll(async () => {
  gw = await startTestGateway({ connectors: challengingConnector() });
  shop = await gw.merchant();
  other = await gw.merchant();
});
afterAll(() => gw?.close());

const stored = (id: string) =>
  gw.database.query<{ status: string; action_url: string | null; result_code: string }>('SELECT status, action_url, result_code FROM payments WHERE id = $1', [id]);

describe("a connector's next-step URL", () => {
  it.each(['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', '/acs/challenge', 'acs.example/challenge'])(
    'that is not an absolute http(s) URL (%s) fails the payment as a processor error, handed to no one',
    async (url) => {
      actionUrl = url;
      const answer = await shop.post('/v1/authorise', cardPayment(shop.ids));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ order_status: '0', result_info: '2008:Declined: processor error', redirect_url: '' });
      expect(answer.raw).not.toContain(url.slice(0, 12));
      expect(await stored(answer.body.transaction_id as string)).toEqual([{ status: 'failed', action_url: null, result_code: '2008' }]);
      const queried = await shop.post('/v1/retrievalTrans', { ...shop.ids, transaction_id: answer.body.transaction_id });
      expect(queried.raw).not.toContain(url.slice(0, 12));
    },
  );

  it('that is an absolute http(s) URL, on any origin, is handed to the merchant as redirect_url', async () => {
    actionUrl = 'https://acs.issuer.example/challenge?tx=1';
    const answer = await other.post('/v1/authorise', cardPayment(other.ids));
    expect(answer.body).toMatchObject({ order_status: '2', redirect_url: 'https://acs.issuer.example/challenge?tx=1' });
    expect(await stored(answer.body.transaction_id as string)).toEqual([{ status: 'requires_authentication', action_url: 'https://acs.issuer.example/challenge?tx=1', result_code: '1001' }]);
  });
});
