// What the sandbox acquirer knows of a card before charging it: the issuing country of the
// sandbox's BINs, and the verdicts of its two risk test cards (docs/risk.md). A live connector
// answers from its acquirer's BIN service instead.
import type { CardFacts } from '../port.ts';
import { TEST_CARDS } from './cards.ts';

export const SANDBOX_RISK_CARDS: ReadonlyMap<string, { readonly name: string; readonly score: number }> = new Map([
  ['4100000000000019', { name: 'sandbox_high_risk_card', score: 100 }],
  ['4000000000004954', { name: 'sandbox_elevated_risk_card', score: 60 }],
]);

const SANDBOX_BINS: ReadonlyMap<string, string> = new Map([
  ['411111', 'US'],
  ['555555', 'US'],
  ['378282', 'US'],
  ['400000', 'US'],
  ['410000', 'US'],
  ['424242', 'US'],
]);

const TEST_CARD_NUMBERS = new Set(TEST_CARDS.map((card) => card.number));

export function sandboxCardFacts(pan: string): CardFacts {
  const issuerCountry = SANDBOX_BINS.get(pan.slice(0, 6));
  const verdict = SANDBOX_RISK_CARDS.get(pan);
  return { ...(issuerCountry ? { issuerCountry } : {}), ...(verdict ? { verdict } : {}), testCard: TEST_CARD_NUMBERS.has(pan) };
}
