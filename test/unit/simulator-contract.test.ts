import { connectorContract } from '../../src/connectors/contract.ts';
import { createSimulator } from '../../src/connectors/simulator/index.ts';

const card = (pan: string) => ({ pan, expiryMonth: 12, expiryYear: 2030, securityCode: '123' });

connectorContract('simulator', () => createSimulator({ baseUrl: 'http://gateway.test' }), {
  approvedCard: card('4111111111111111'),
  declinedCard: card('4000000000000002'),
  challengeCard: card('4000000000003220'),
  redirectMethod: 'sandbox_redirect',
});
