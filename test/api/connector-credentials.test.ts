// Each account's connector credentials (`acquiro accounts connector set --credentials-file`)
// reach its connector on every call made for it: the authorisation, the capture, the refund
// (docs/connectors.md, Credentials). Another account's calls carry its own, or none; a payment
// taken on the connector an account was routed away from never gets the new connector's keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connectors } from '../../src/app/context.ts';
import type { Connector, Credentials } from '../../src/connectors/port.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from '../support/client.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { capture, pay, refund } from '../support/lifecycle.ts';
import { setConnector } from '../support/routing.ts';
import { until } from '../support/until.ts';

/** Every call a connector was handed, by its name and the payment it was for, with its credentials. */
const seen: { connector: string; call: string; paymentId: string; credentials: Credentials | undefined }[] = [];

function recording(name: string): Connector {
  const simulator = createSimulator({ baseUrl: 'http://gateway.test' });
  const record =
    <R extends { paymentId: string; credentials?: Credentials }, O>(call: string, real: (request: R) => O) =>
    (request: R): O => {
      seen.push({ connector: name, call, paymentId: request.paymentId, credentials: request.credentials });
      return real(request);
    };
  return {
    ...simulator,
    name,
    authorise: record('authorise', simulator.authorise),
    capture: record('capture', simulator.capture),
    cancel: record('cancel', simulator.cancel),
    refund: record('refund', simulator.refund),
  };
}

const byName = new Map([recording('simulator'), recording('acme')].map((connector) => [connector.name, connector]));
const connectors: Connectors = { get: (name) => byName.get(name) };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ connectors });
});
afterAll(() => gw?.close());

async function route(shop: SignedClient, connector: string, credentials?: Record<string, string>): Promise<string> {
  const printed = await setConnector(gw, shop, connector, credentials);
  await seenByGateway(shop);
  return printed;
}

/**
 * Until the gateway's account cache holds the account as stored: the change reaches it by NOTIFY
 * (within a second, docs/operations.md), not at the command's return, and a payment sent before
 * that would be routed as before.
 */
async function seenByGateway(shop: SignedClient): Promise<void> {
  const { merchant_id: merchantId, account_id: accountId } = shop.ids;
  await until(
    `account ${accountId}'s change seen by the gateway`,
    async () => {
      const [stored] = await gw.database.query<{ connector: string; connector_credentials: string | null }>(`SELECT connector, connector_credentials FROM accounts WHERE id = $1`, [accountId]);
      const cached = (await gw.gateway.server.directory.lookup(merchantId, accountId))?.account;
      return cached?.connector === stored!.connector && (cached.connectorCredentials ?? null) === stored!.connector_credentials;
    },
    { withinMs: 10_000, everyMs: 20 },
  );
}

const callsFor = (paymentId: string) => seen.filter((call) => call.paymentId === paymentId).map(({ connector, call, credentials }) => ({ connector, call, credentials }));

describe("an account's connector credentials", () => {
  it('reach its connector with the authorisation, the capture and the refund; another account gets its own or none', async () => {
    const shop = await gw.merchant({ captureMode: 'manual' });
    const other = await gw.merchant({ captureMode: 'manual' });
    const bare = await gw.merchant({ captureMode: 'manual' });
    const keys = { api_key: 'ak_test_shop_123', region: 'eu' };
    await route(shop, 'simulator', keys);
    await route(other, 'simulator', { api_key: 'ak_test_other_456' });

    const txn = await pay(shop);
    expect((await capture(shop, txn)).capture_status).toBe('1');
    expect((await refund(shop, txn, txn.amount)).refund_status).not.toBe('0');
    expect(callsFor(txn.transaction_id)).toEqual([
      { connector: 'simulator', call: 'authorise', credentials: keys },
      { connector: 'simulator', call: 'capture', credentials: keys },
      { connector: 'simulator', call: 'refund', credentials: keys },
    ]);

    const theirs = await pay(other);
    await capture(other, theirs);
    expect(callsFor(theirs.transaction_id).map((call) => call.credentials)).toEqual([{ api_key: 'ak_test_other_456' }, { api_key: 'ak_test_other_456' }]);
    const none = await pay(bare);
    await capture(bare, none);
    expect(callsFor(none.transaction_id).map((call) => call.credentials)).toEqual([{}, {}]);
  });

  it("never hands a re-routed account's new keys to the connector that took its earlier payments", async () => {
    const shop = await gw.merchant({ captureMode: 'manual' });
    await route(shop, 'simulator', { api_key: 'ak_test_simulator' });
    const before = await pay(shop);
    await route(shop, 'acme', { api_key: 'ak_test_acme' });
    const after = await pay(shop);
    expect((await capture(shop, before)).capture_status).toBe('1');
    expect((await capture(shop, after)).capture_status).toBe('1');
    expect(callsFor(before.transaction_id)).toEqual([
      { connector: 'simulator', call: 'authorise', credentials: { api_key: 'ak_test_simulator' } },
      { connector: 'simulator', call: 'capture', credentials: {} },
    ]);
    expect(callsFor(after.transaction_id)).toEqual([
      { connector: 'acme', call: 'authorise', credentials: { api_key: 'ak_test_acme' } },
      { connector: 'acme', call: 'capture', credentials: { api_key: 'ak_test_acme' } },
    ]);
  });

  it("drops the previous connector's credentials when the account moves to another without new ones: the new connector never gets them", async () => {
    const shop = await gw.merchant({ captureMode: 'manual' });
    const ids = ['--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id];
    await route(shop, 'simulator', { api_key: 'ak_test_simulator_only', region: 'eu' });
    // The same connector again, without a file: its credentials are kept, nothing said dropped.
    expect(await route(shop, 'simulator')).toBe(`account ${shop.ids.account_id}: connector simulator, credentials api_key, region\n`);
    expect(await route(shop, 'acme')).toBe(
      `account ${shop.ids.account_id}: connector acme, credentials (none)\n` +
        "dropped the previous connector's credentials (api_key, region): they are never sent to acme; store its own with --credentials-file\n",
    );
    const [row] = await gw.database.query<{ connector_credentials: string | null }>(`SELECT connector_credentials FROM accounts WHERE id = $1`, [shop.ids.account_id]);
    expect(row!.connector_credentials).toBeNull();
    expect(JSON.parse((await runCommand(['accounts', 'connector', 'show', ...ids, '--json'], gw.gateway.deps)).stdout)).toEqual({
      account_id: shop.ids.account_id,
      connector: 'acme',
      credentials: [],
    });

    const txn = await pay(shop);
    expect((await capture(shop, txn)).capture_status).toBe('1');
    expect(callsFor(txn.transaction_id)).toEqual([
      { connector: 'acme', call: 'authorise', credentials: {} },
      { connector: 'acme', call: 'capture', credentials: {} },
    ]);

    // Moving on with a file stores the new connector's; back without one drops them, as --json says.
    await route(shop, 'simulator', { api_key: 'ak_test_simulator_2' });
    const json = await runCommand(['accounts', 'connector', 'set', ...ids, '--connector', 'acme', '--json'], gw.gateway.deps);
    expect(JSON.parse(json.stdout)).toEqual({ account_id: shop.ids.account_id, connector: 'acme', credentials: [], dropped_credentials: ['api_key'] });
    const again = await runCommand(['accounts', 'connector', 'set', ...ids, '--connector', 'acme', '--json'], gw.gateway.deps);
    expect(JSON.parse(again.stdout)).toEqual({ account_id: shop.ids.account_id, connector: 'acme', credentials: [], dropped_credentials: [] });
  });
});
