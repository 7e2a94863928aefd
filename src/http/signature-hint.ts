// In the sandbox, a refused signature says what the gateway signed, so that a developer can diff
// it against the string their own code built. Never in live mode. Card numbers are masked as in
// answers (411111******1111) and the CVC is left out: an answer never carries either in clear.
import { maskFrom } from '../domain/card.ts';
import { canonicalString, type SignedBody, type SignedNode } from '../domain/signature.ts';

/** Every run of 12 to 19 digits (spaces or dashes between them allowed) is taken for a card number. */
const CARD_LIKE = /\d(?:[ -]?\d){11,18}/g;

function masked(node: SignedNode, key: string): SignedNode {
  if (key === 'security_code') return undefined;
  if (typeof node === 'string') {
    return node.replace(CARD_LIKE, (run) => {
      const digits = run.replace(/\D/g, '');
      return maskFrom(digits.slice(0, 6), digits.slice(-4), digits.length);
    });
  }
  if (Array.isArray(node)) return node.map((child) => masked(child, key));
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([name, child]) => [name, masked(child, name)]));
  }
  return node;
}

/** The canonical string of `body`, card numbers masked and security_code left out. */
export function safeCanonicalString(body: SignedBody): string {
  return canonicalString(masked(body, '') as SignedBody);
}
