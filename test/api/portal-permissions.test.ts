// Every role tried on every page and action the portal declares (src/web/portal/permissions.ts
// through the guard's registry): allowed ones pass the guard, the others are refused with 403,
// change nothing, and are audited. docs/portal.md's matrix says the same as the table.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/domain/members.ts';
import { DECLARED } from '../../src/web/portal/guard.ts';
import { may, PERMISSIONS, type Permission } from '../../src/web/portal/permissions.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { createMember, signIn } from '../support/portal.ts';

let gw: TestGateway;
let merchantId: string;
beforeAll(async () => {
  gw = await startTestGateway();
  merchantId = (await gw.merchant()).credentials.merchant_id;
});
afterAll(() => gw?.close());

// Signing out everywhere ends the session the other checks use: it goes last.
const routes = () => [...DECLARED.values()].sort((a, b) => Number(a.path.includes('sign-out')) - Number(b.path.includes('sign-out')));
const concrete = (path: string) => path.replace(/:[a-zA-Z]+/g, 'PU00000000000000000000000000');

describe('portal permissions', () => {
  it('declares pages and actions through the guard', () => {
    expect(routes().length).toBeGreaterThan(5);
  });

  it.each(ROLES)('lets a %s reach exactly what its role allows', async (role: Role) => {
    const member = await createMember(gw, merchantId, role);
    const client = await signIn(gw, member);
    for (const route of routes()) {
      await client.get('/portal/account');
      const answer = route.method === 'GET' ? await client.get(concrete(route.path)) : await client.post(concrete(route.path), { role: 'viewer', email: `x${Date.now()}@shop.example` });
      const allowed = may(role, route.permission);
      expect({ route: `${route.method} ${route.path}`, refused: answer.status === 403 }).toEqual({ route: `${route.method} ${route.path}`, refused: !allowed });
      if (allowed) expect(answer.location ?? '').not.toBe('/portal/sign-in');
    }
    const refusals = await gw.database.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM portal_audit_log WHERE user_id = $1 AND outcome = 'refused' AND detail->>'reason' LIKE 'your role does not allow%'`,
      [member.userId],
    );
    expect(refusals[0]!.n).toBe(routes().filter((route) => !may(role, route.permission)).length);
  });

  it('shows each role only the navigation it may follow', async () => {
    for (const role of ROLES) {
      const client = await signIn(gw, await createMember(gw, merchantId, role));
      const page = await client.get('/portal/transactions');
      expect(page.status).toBe(200);
      const body = page.body;
      expect(body.includes('href="/portal/audit"')).toBe(may(role, 'audit.view'));
      expect(body.includes('href="/portal/members"')).toBe(may(role, 'members.view'));
    }
  });

  it('is the matrix docs/portal.md prints', () => {
    const doc = readFileSync(new URL('../../docs/portal.md', import.meta.url), 'utf8');
    for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
      const line = doc.split('\n').find((text) => text.startsWith(`| \`${permission}\` |`));
      expect(line, permission).toBeDefined();
      const marks = line!.split('|').slice(3, 7).map((cell) => cell.trim() === '✓');
      expect({ permission, marks }).toEqual({ permission, marks: ROLES.map((role) => may(role, permission)) });
    }
  });
});
