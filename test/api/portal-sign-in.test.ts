// Signing in to the portal over HTTP: password, second factor, enrolment, the session cookie.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { createMember, nextCode, PortalClient, signIn } from '../support/portal.ts';

let gw: TestGateway;
let merchantId: string;
beforeAll(async () => {
  gw = await startTestGateway();
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

describe('portal sign-in', () => {
  it('signs an operator in with the password alone, with a new HttpOnly SameSite=Strict cookie', async () => {
    const member = await createMember(gw, merchantId, 'operator');
    const client = new PortalClient(gw.gateway.server.app);
    await client.get('/portal/sign-in');
    const answer = await client.post('/portal/sign-in', { email: member.email, password: member.password });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/portal/transactions');
    const cookie = ([] as string[]).concat(answer.headers['set-cookie'] as string[]).find((line) => line.startsWith('acquiro_portal='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\/portal/);
    const page = await client.get('/portal/transactions');
    expect(page.status).toBe(200);
    expect(page.body).toContain(member.email);
  });

  it('makes an owner enrol a second factor, then asks for a code at the next sign-in', async () => {
    const member = await createMember(gw, merchantId, 'owner');
    await signIn(gw, member);
    expect(member.totpSecret).toMatch(/^[A-Z2-7]+$/);
    const client = new PortalClient(gw.gateway.server.app);
    await client.get('/portal/sign-in');
    const answer = await client.post('/portal/sign-in', { email: member.email, password: member.password });
    expect(answer.location).toBe('/portal/second-factor');
    expect((await client.get('/portal/transactions')).location).toBe('/portal/second-factor');
    await client.get('/portal/second-factor');
    expect((await client.post('/portal/second-factor', { code: '000000' })).status).toBe(401);
    const done = await client.post('/portal/second-factor', { code: nextCode(member) });
    expect(done.location).toBe('/portal/transactions');
    expect((await client.get('/portal/transactions')).status).toBe(200);
  });
});
