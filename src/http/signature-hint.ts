// In the sandbox, a refused signature says what the gateway signed, so that a developer can diff
// it against the string their own code built. Never in live mode. Card numbers, in values and in
// names, are masked as in answers (411111******1111) and the CVC is left out: an answer never
// carries either in clear. A field the operation does not define is shown by its name with its
// value as `***`: it may be a CVC or a card number under any name (`cvv`, `card_cvv`, `pan`...),
// and it is refused (4019) once signed anyway, so its name is all the developer needs.
import type { TSchema } from 'typebox';
import { maskPan } from '../domain/card.ts';
import { maskCardNumbers } from '../domain/card-in-text.ts';
import { canonicalString, type SignedBody, type SignedNode } from '../domain/signature.ts';

/** Fewer digits than this in `card` is no card number, and masking it would hide the mistake. */
const SHORTEST_CARD = 12;
/** What an undefined field's value reads as. */
const HIDDEN = '***';

interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
}

// The `card` field is masked whatever it holds; elsewhere only what is a card number (a brand's
// prefix and length, a valid Luhn digit) is, by the rule free text is stored under. So an order
// number that happens to hold a long run of digits still reads as the developer sent it.
// `schema` is the field's node in the operation's request schema, undefined for a field it does
// not define: then every value below it is hidden, as is text sent where the schema has a list
// or an object.
function masked(node: SignedNode, key: string, schema: SchemaNode | undefined): SignedNode {
  if (key === 'security_code') return undefined;
  if (node === null || node === undefined || node === '') return node;
  if (Array.isArray(node)) return node.map((child) => masked(child, key, schema?.type === 'array' ? schema.items : undefined));
  if (typeof node === 'object') {
    const properties = schema?.type === 'object' ? (schema.properties ?? {}) : {};
    // A name is the sender's text too: a card number typed as one is masked like a value.
    return Object.fromEntries(
      Object.entries(node).map(([name, child]) => [
        maskCardNumbers(name),
        masked(child, name, Object.hasOwn(properties, name) ? properties[name] : undefined),
      ]),
    );
  }
  // A leaf where the schema has none (a list or an object sent as text) is no field either.
  if (!schema || schema.type === 'object' || schema.type === 'array') return HIDDEN;
  const text = String(node);
  const digits = text.replace(/\D/g, '');
  if (key === 'card' && digits.length >= SHORTEST_CARD) return maskPan(digits);
  return maskCardNumbers(text);
}

/**
 * The canonical string of `body` as `schema` (the operation's request fields) reads it: card
 * numbers masked, security_code left out, and the values of fields it does not define as `***`.
 */
export function safeCanonicalString(body: SignedBody, schema: TSchema): string {
  return canonicalString(masked(body, '', schema as SchemaNode) as SignedBody);
}
