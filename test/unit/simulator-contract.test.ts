// The connector contract runs on every connector the registry plugs in (in sandbox mode: the
// simulator, and whatever a real acquirer's adapter adds). A registered connector without
// fixtures here fails: adding one means adding its contract run.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { connectorContract, type ContractFixtures } from '../../src/connectors/contract.ts';
import { createConnectors } from '../../src/connectors/registry.ts';

const card = (pan: string) => ({ pan, expiryMonth: 12, expiryYear: 2030, securityCode: '123' });

const FIXTURES: Readonly<Record<string, ContractFixtures>> = {
  simulator: {
    approvedCard: card('4111111111111111'),
    declinedCard: card('4000000000000002'),
    challengeCard: card('4000000000003220'),
    redirectMethod: 'sandbox_redirect',
  },
};

const registry = createConnectors(loadConfig({ ACQUIRO_BASE_URL: 'http://gateway.test' }));
const names = registry.names!();

describe('the registry', () => {
  it.each(names)('has contract fixtures for %s', (name) => {
    expect(FIXTURES[name]).toBeDefined();
  });
});

for (const name of names) {
  if (FIXTURES[name]) connectorContract(name, () => registry.get(name)!, FIXTURES[name]);
}
