// Turns a request body into a tree by its content, whatever the Content-Type says (docs/api/authorise.md, Request):
// first non-blank character `{` → JSON, `<` → XML, anything else → form with bracket notation.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import qs from 'qs';
import { AppError } from '../../domain/errors.ts';
import type { SignedBody, SignedNode } from '../../domain/signature.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * @param lists paths, relative to the XML root, of fields the operation declares as lists; an XML
 *   body writes a list as repeated elements, so a single element must still become a list.
 */
export function decodeBody(raw: Buffer, lists: ReadonlySet<string>): SignedBody {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('unreadable_body', 'body is not valid UTF-8');
  }
  const start = text.search(/\S/);
  if (start === -1) return {};
  const first = text[start];
  if (first === '{') return decodeJson(text);
  if (first === '<') return decodeXml(text, lists);
  return decodeForm(text.trim());
}

function decodeJson(text: string): SignedBody {
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    throw new AppError('unreadable_body', 'body is not valid JSON');
  }
  assertNoDuplicateKeys(text);
  return tree as SignedBody;
}

/**
 * JSON.parse keeps the last of two equal keys; a signed body must not be read two ways, so both
 * are refused. Runs only on text JSON.parse accepted, so it needs to track structure, not syntax.
 */
function assertNoDuplicateKeys(text: string): void {
  const objects: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const begin = i;
      let escaped = false;
      for (i++; text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) {
          escaped = true;
          i++;
        }
      }
      const keys = objects[objects.length - 1];
      if (expectKey && keys) {
        const key = escaped ? (JSON.parse(text.slice(begin, i + 1)) as string) : text.slice(begin + 1, i);
        if (keys.has(key)) throw new AppError('duplicate_key', `duplicate key ${key} in JSON body`, { field: key });
        if (key === '__proto__') throw new AppError('malformed_body', 'key __proto__ is not accepted', { field: key });
        keys.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b) {
      objects.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      objects.push(null);
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      objects.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = objects[objects.length - 1] != null;
    } else if (c === 0x3a) {
      expectKey = false;
    }
  }
}

const FORBIDDEN_MARKUP = /<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/i;
const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (_all, ref: string) => {
    if (ref.startsWith('#')) {
      const point = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (point > 0x10ffff) throw new AppError('unreadable_body', 'invalid character reference in XML');
      return String.fromCodePoint(point);
    }
    const predefined = PREDEFINED[ref];
    if (predefined === undefined) throw new AppError('forbidden_markup', `undefined entity &${ref}; in XML`);
    return predefined;
  });
}

function decodeXml(text: string, lists: ReadonlySet<string>): SignedBody {
  if (FORBIDDEN_MARKUP.test(text)) throw new AppError('forbidden_markup', 'DOCTYPE and entity declarations are not accepted');
  if (XMLValidator.validate(text) !== true) throw new AppError('unreadable_body', 'body is not well-formed XML');
  const parser = new XMLParser({
    ignoreAttributes: true,
    parseTagValue: false,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    trimValues: true,
    isArray: (_name, jPath) => lists.has(String(jPath).slice(String(jPath).indexOf('.') + 1)),
    tagValueProcessor: (_name, value) => decodeReferences(value),
  });
  const document = parser.parse(text) as Record<string, unknown>;
  const root = Object.values(document)[0];
  if (root === '' || root === undefined) return {};
  if (typeof root !== 'object' || root === null) {
    throw new AppError('malformed_body', 'the XML root element must hold the fields as child elements');
  }
  assertNoMixedContent(root);
  return root as SignedBody;
}

function assertNoMixedContent(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  if (!Array.isArray(node) && '#text' in node) {
    throw new AppError('malformed_body', 'XML elements must hold either text or child elements, not both');
  }
  for (const child of Object.values(node)) assertNoMixedContent(child);
}

function decodeForm(text: string): SignedBody {
  try {
    return qs.parse(text, {
      depth: 10,
      strictDepth: true,
      arrayLimit: 10_000,
      parameterLimit: 100_000,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
      allowDots: false,
      charset: 'utf-8',
    }) as SignedBody;
  } catch {
    throw new AppError('malformed_body', 'form body nests deeper than 10 levels or holds too many fields');
  }
}

/**
 * After the signature is checked: every leaf becomes the text that was signed (numbers and
 * booleans via String()), and null or empty fields are dropped, as the signature ignores them.
 */
export function normaliseBody(node: SignedBody): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    const value = normaliseNode(node[key]);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function normaliseNode(node: SignedNode): unknown {
  if (node === null || node === undefined || node === '') return undefined;
  if (Array.isArray(node)) return node.map((child) => normaliseNode(child) ?? null);
  if (typeof node === 'object') return normaliseBody(node as SignedBody);
  return String(node);
}
