// Routes a test's account to a connector with `acquiro accounts connector set` (with credentials,
// written to a file of mode 0600 as the command requires), then empties the gateway's account cache
// so that its next request is routed as stored (the change's NOTIFY would reach it within a second;
// test/api/connector-credentials.test.ts waits for that instead, as it tests it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import type { SignedClient } from './client.ts';
import type { TestGateway } from './gateway.ts';
import { tempDir } from './temp.ts';

/** `acquiro accounts connector set` for the account, checked to succeed; answers what it printed. */
export async function setConnector(gw: TestGateway, shop: SignedClient, connector: string, credentials?: Record<string, string>): Promise<string> {
  const argv = ['accounts', 'connector', 'set', '--merchant-id', shop.ids.merchant_id, '--account-id', shop.ids.account_id, '--connector', connector];
  if (credentials) {
    const path = join(tempDir('acquiro-creds-'), 'credentials.json');
    writeFileSync(path, JSON.stringify(credentials), { mode: 0o600 });
    argv.push('--credentials-file', path);
  }
  const routed = await runCommand(argv, gw.gateway.deps);
  expect([routed.exitCode, routed.stderr]).toEqual([0, '']);
  return routed.stdout;
}

/** setConnector, then the gateway's account cache emptied: its next request is routed as stored. */
export async function routeAccount(gw: TestGateway, shop: SignedClient, connector: string, credentials?: Record<string, string>): Promise<void> {
  await setConnector(gw, shop, connector, credentials);
  gw.gateway.server.directory.forget();
}
