// In the sandbox, a refused signature says what the gateway signed, so that a developer can diff
// it against the string their own code built. Never in live mode. Card numbers, in values and in
// names, are masked as in answers (411111******1111) and the CVC is left out: an answer never
// carries either in clear.
import { maskPan } from '../domain/card.ts';
import { maskCardNumbers } from '../domain/card-in-text.ts';
import { canonicalString, type SignedBody, type SignedNode } from '../domain/signature.ts';

/** Fewer digits than this in `card` is no card number, and masking it would hide the mistake. */
const SHORTEST_CARD = 12;

// The `card` field is masked whatever it holds; elsewhere only what is a card number (a brand's
// prefix and length, a valid Luhn digit) is, by the rule free text is stored under. So an order
// number that happens to hold a long run of digits still reads as the developer sent it.
function masked(node: SignedNode, key: string): SignedNode {
  if (key === 'security_code') return undefined;
  if (typeof node === 'string') {
    const digits = node.replace(/\D/g, '');
    if (key === 'card' && digits.length >= SHORTEST_CARD) return maskPan(digits);
    return maskCardNumbers(node);
  }
  if (Array.isArray(node)) return node.map((child) => masked(child, key));
  if (node && typeof node === 'object') {
    // A name is the sender's text too: a card number typed as one is masked like a value.
    return Object.fromEntries(Object.entries(node).map(([name, child]) => [maskCardNumbers(name), masked(child, name)]));
  }
  return node;
}

/** The canonical string of `body`, card numbers masked and security_code left out. */
export function safeCanonicalString(body: SignedBody): string {
  return canonicalString(masked(body, '') as SignedBody);
}
