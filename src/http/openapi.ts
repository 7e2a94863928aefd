// The OpenAPI 3.1 description of every operation, built from the request schemas the operations
// validate against (TypeBox schemas are JSON Schema). Served at GET /openapi.json and checked in as
// docs/openapi.json (`npm run openapi` rewrites it; test/unit/openapi.test.ts fails on drift).
import type { TSchema } from 'typebox';
import { CODES, type CodeDef } from '../domain/errors.ts';
import { VERSION } from '../version.ts';
import { CATALOGUE, requestSchema, type CatalogueEntry } from './catalogue.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isEmpty = (node: Json) => node !== null && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length === 0;

/**
 * JSON Schema 2020-12 as OpenAPI 3.1 takes it: our `hint` keyword becomes the description,
 * `freeText` an `x-` extension, and a
 * property of any value (`{}`: known to the operation only to be refused with its own reason,
 * such as a card number sent to /v1/checkout) is left out.
 */
function jsonSchema(schema: TSchema): Json {
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'hint') out.description ??= value;
      // Our own keyword (card numbers typed into it are masked) as an OpenAPI extension.
      else if (key === 'freeText') out['x-card-numbers-masked'] = value;
      else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        out.properties = Object.fromEntries(Object.entries(value).filter(([, child]) => !isEmpty(child)).map(([name, child]) => [name, walk(child)]));
      } else out[key] = walk(value);
    }
    return out;
  };
  return walk(JSON.parse(JSON.stringify(schema)) as Json);
}

const REQUEST_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'application/xml'];

/** HTTP statuses a signed operation may answer, beside 200, and the codes behind them. */
function refusals(entry: CatalogueEntry): Record<string, Json> {
  const media = entry.operation.format === 'xml' ? 'application/xml' : 'application/json';
  const statuses = new Map<number, string[]>();
  for (const def of Object.values(CODES) as CodeDef[]) {
    if (def.http && def.http !== 200) statuses.set(def.http, [...(statuses.get(def.http) ?? []), def.code]);
  }
  return Object.fromEntries(
    [...statuses.entries()]
      .filter(([status]) => status !== 403 || entry.doc === 'query.md' || entry.doc === 'refund-search.md')
      .filter(([status]) => status !== 409 || entry.operation.idempotencyKey === true)
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        { description: `Refused; codes ${codes.sort().join(', ')} (docs/codes.md)`, content: { [media]: { schema: { type: 'object' } } } },
      ]),
  );
}

const schemaName = (entry: CatalogueEntry) => `${entry.operation.name.replace(/(^|-)([a-z])/g, (_m, _dash, c: string) => c.toUpperCase())}Request`;

function operationOf(entry: CatalogueEntry): Json {
  const schema = { $ref: `#/components/schemas/${schemaName(entry)}` };
  const answerMedia = entry.path === '/v1/checkout' ? 'text/html' : entry.operation.format === 'xml' ? 'application/xml' : 'application/json';
  return {
    operationId: entry.operation.name,
    summary: entry.summary,
    description: `Answer format: ${entry.why}. See docs/api/${entry.doc}. Every request and answer carries encryption_data (docs/signing.md).`,
    ...(entry.operation.idempotencyKey
      ? {
          parameters: [
            {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              description: 'The same key with the same body answers the stored outcome; nothing moves twice (docs/idempotency.md)',
              schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
            },
          ],
        }
      : {}),
    requestBody: {
      required: true,
      description: 'Read by content whatever the Content-Type says: JSON, XML (children of the root element) or a form with bracket notation.',
      content: Object.fromEntries(REQUEST_TYPES.map((type) => [type, { schema }])),
    },
    responses: {
      '200': { description: 'Understood; the business outcome is inside (a declined card is a 200)', content: { [answerMedia]: { schema: { type: 'object' } } } },
      ...refusals(entry),
    },
  };
}

export function openApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Acquiro payment gateway API',
      version: VERSION,
      description: 'Signed operations under /v1. The request bodies are described here; the answers on the pages of docs/api/.',
    },
    servers: [{ url: 'http://127.0.0.1:8080', description: 'a local sandbox gateway (npm start)' }],
    paths: Object.fromEntries(CATALOGUE.map((entry) => [entry.path, { post: operationOf(entry) }])),
    components: { schemas: Object.fromEntries(CATALOGUE.map((entry) => [schemaName(entry), jsonSchema(requestSchema(entry))])) },
  };
}

/** The checked-in form: two-space indentation and a final newline. */
export function openApiText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
