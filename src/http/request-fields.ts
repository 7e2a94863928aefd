// What a merchant's signed request may hold, checked once for every operation before anything
// runs: each key, at any depth, is a field name (letters, digits and `_`; list indexes aside) and
// a field the operation's request schema defines; anything else refuses the whole request (4019,
// naming the path). The canonical string's `path=value` pairs cannot be rearranged when no name
// holds `.`, `[`, `&` or `=` and every value escapes `%`, `&` and `=` (src/domain/signature.ts).
//
// The same walk masks card numbers typed into free-text fields (schema nodes marked `freeText`),
// so what is stored, logged, echoed and notified never holds one.
import type { TSchema } from 'typebox';
import { maskCardNumbers } from '../domain/card-in-text.ts';
import { AppError } from '../domain/errors.ts';

const FIELD_NAME = /^[A-Za-z0-9_]+$/;
/** How much of an unknown name a refusal quotes. */
const QUOTED = 64;

interface SchemaNode {
  readonly type?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly freeText?: boolean;
}

/**
 * Refuses `body` unless every key is a field name `schema` defines; masks card numbers in its
 * free-text values, in place. Where the body's shape differs from the schema's (text sent as a
 * list, say) only names are checked below: the operation's validation refuses the shape itself.
 */
export function admitFields(body: Record<string, unknown>, schema: TSchema): void {
  admitObject(body, schema as SchemaNode, '');
}

/** The refusals of admitFields without its masking: for the body as sent, empty fields included. */
export function admitNames(body: Record<string, unknown>, schema: TSchema): void {
  admitObject(structuredClone(body), schema as SchemaNode, '');
}

function admitObject(node: Record<string, unknown>, schema: SchemaNode | undefined, path: string): void {
  const properties = schema?.type === 'object' ? (schema.properties ?? {}) : undefined;
  for (const key of Object.keys(node)) {
    const at = path ? `${path}.${key}` : key;
    if (!FIELD_NAME.test(key)) refuse(at, 'is not a field name: letters, digits and _ only');
    let child: SchemaNode | undefined;
    if (properties) {
      // Own properties only: `constructor` or `__proto__` is not a field.
      child = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (!child) refuse(at, 'is not a field of this request');
    }
    node[key] = admitNode(node[key], child, at);
  }
}

function admitNode(value: unknown, schema: SchemaNode | undefined, path: string): unknown {
  if (typeof value === 'string') return schema?.freeText ? maskCardNumbers(value) : value;
  if (Array.isArray(value)) {
    const items = schema?.type === 'array' ? schema.items : undefined;
    for (let i = 0; i < value.length; i++) value[i] = admitNode(value[i], items, `${path}[${i}]`);
  } else if (typeof value === 'object' && value !== null) {
    admitObject(value as Record<string, unknown>, schema, path);
  }
  return value;
}

function refuse(path: string, why: string): never {
  // The name is the sender's text: quoted short, printable and with no card number in it.
  const shown = maskCardNumbers(path.length > QUOTED ? `${path.slice(0, QUOTED)}…` : path).replace(/[^\x20-\x7e…]/g, '?');
  throw new AppError('unknown_field', `${shown} ${why}`, { field: shown });
}
