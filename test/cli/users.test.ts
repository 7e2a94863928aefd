// `acquiro users create --password-stdin` from a shell: the password read from standard input,
// in the process itself, and routed to the server that owns the embedded database.
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../support/gateway.ts';
import { acquiro, migratedDataDir, startServer } from '../support/processes.ts';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

// Routing to the owning server is the embedded database's; this file makes one of its own whatever
// the project, so it runs once.
describe.runIf(TEST_DB === 'pglite')('acquiro users from a shell', () => {
  it('sets the password from standard input, here and through the owning server; the member signs in', async () => {
    const env = { ACQUIRO_DATA_DIR: await migratedDataDir() };
    const merchant = JSON.parse((await acquiro(['merchants', 'create', '--name', 'Shell shop', '--json'], env)).stdout) as { merchant_id: string };
    const here = await acquiro(['users', 'create', '--merchant-id', merchant.merchant_id, '--email', 'here@shop.example', '--role', 'viewer', '--password-stdin', '--json'], env, 'a password from a pipe\n');
    expect(here.code).toBe(0);
    expect(JSON.parse(here.stdout)).toMatchObject({ status: 'active', set_password_url: null });
    const server = await startServer(env);
    stops.push(async () => void (await server.stop()));
    const routed = await acquiro(['users', 'create', '--merchant-id', merchant.merchant_id, '--email', 'routed@shop.example', '--role', 'operator', '--password-stdin', '--json'], env, 'another piped password\n');
    expect(routed.code).toBe(0);
    expect(JSON.parse(routed.stdout)).toMatchObject({ status: 'active' });
    const form = await fetch(`${server.url}/portal/sign-in`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const cookie = form.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    const signIn = await fetch(`${server.url}/portal/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ _csrf: csrf, email: 'routed@shop.example', password: 'another piped password' }),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/portal/transactions');
  });
});
