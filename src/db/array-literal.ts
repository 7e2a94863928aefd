// Array parameters as PostgreSQL array literals, written as node-postgres writes them but faster.
// The coalesced statements pass their rows as columns of arrays (src/db/repositories/payment-batches.ts):
// some fifty elements an authorisation. node-postgres quotes each element with two global
// replaces (a backslash, then a double quote), and a replace costs as much when it finds nothing:
// under callgrind those replaces were a tenth of the server's instructions per authorisation
// (docs/performance.md, "Instructions at steady state"). Here an element is searched once, and
// copied as it is when it holds neither character, which is nearly always.
import { createRequire } from 'node:module';

// node-postgres' own conversion of a value to its text (dates in its format, buffers, JSON): the
// elements are converted as node-postgres converts them, only quoted faster.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (value: unknown) => unknown };

const QUOTED = /[\\"]/;

function quoted(text: string): string {
  return QUOTED.test(text) ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${text}"`;
}

/**
 * The literal node-postgres would send for `values` (`{"a","b",NULL}`, nested arrays as nested
 * braces); an array of binary data is left to node-postgres (undefined).
 */
export function arrayLiteral(values: readonly unknown[]): string | undefined {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) literal += ',';
    const value = values[i];
    if (value === null || value === undefined) literal += 'NULL';
    else if (typeof value === 'string') literal += quoted(value);
    else if (Array.isArray(value)) {
      const inner = arrayLiteral(value);
      if (inner === undefined) return undefined;
      literal += inner;
    } else if (ArrayBuffer.isView(value)) return undefined;
    else literal += quoted(String(prepareValue(value)));
  }
  return `${literal}}`;
}

/** A statement's parameters with each array written as its literal (the rest as they are). */
export function withArrayLiterals(params: readonly unknown[]): unknown[] {
  return params.map((param) => (Array.isArray(param) ? (arrayLiteral(param) ?? param) : param));
}
