// Turns a request body into a tree by its content, whatever the Content-Type says (docs/api/authorise.md, Request):
// first non-blank character `{` → JSON, `<` → XML, anything else → form with bracket notation.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '../../domain/errors.ts';
import type { SignedBody, SignedNode } from '../../domain/signature.ts';
import { findBadText, quoteName } from '../../domain/text.ts';
import { decodeForm } from './form.ts';
import { MAX_DEPTH } from './limits.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * @param lists paths, relative to the XML root, of fields the operation declares as lists; an XML
 *   body writes a list as repeated elements, so a single element must still become a list.
 * @param batchList the list of a batch operation, whose entries are judged one by one: bad text
 *   in one of them refuses that order in the answer (src/app/batch), not the whole request.
 */
export function decodeBody(raw: Buffer, lists: ReadonlySet<string>, batchList?: string): SignedBody {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('unreadable_body', 'body is not valid UTF-8');
  }
  const start = text.search(/\S/);
  if (start === -1) return {};
  const first = text[start];
  let tree: SignedBody;
  let suspect: boolean;
  if (first === '{') {
    const scan = scanJson(text);
    tree = parseJson(text, scan);
    suspect = scan.suspectEscape;
  } else if (first === '<') {
    tree = decodeXml(text, lists);
    suspect = text.includes('\0') || text.includes('&#');
  } else {
    tree = decodeForm(text.trim());
    suspect = text.includes('\0') || text.includes('%00');
  }
  // Bad text can only enter through these few spellings, so the tree is walked only when one occurs.
  if (suspect) refuseBadText(tree, batchList);
  return tree;
}

function refuseBadText(tree: SignedBody, batchList: string | undefined): void {
  for (const key of Object.keys(tree)) {
    if (key === batchList && Array.isArray(tree[key])) continue;
    const found = findBadText({ [key]: tree[key] });
    if (found !== undefined) {
      const field = quoteName(found);
      throw new AppError('invalid_field', `${field} is invalid: expected text without NUL characters or unpaired surrogates`, { field });
    }
  }
}

interface JsonScan {
  /** The first key given twice in one object, or __proto__. */
  readonly refusal: AppError | undefined;
  /** A `\u` escape of NUL or of a surrogate occurs: the values must be checked (refuseBadText). */
  readonly suspectEscape: boolean;
}

function parseJson(text: string, scan: JsonScan): SignedBody {
  let tree: unknown;
  try {
    tree = JSON.parse(text);
  } catch {
    throw new AppError('unreadable_body', 'body is not valid JSON');
  }
  if (scan.refusal) throw scan.refusal;
  return tree as SignedBody;
}

/**
 * One pass over the text before JSON.parse: refuses nesting deeper than MAX_DEPTH at once (deep
 * nesting would exhaust the stack of whatever walks the tree), and notes what is refused once the
 * text is known to be JSON. JSON.parse keeps the last of two equal keys; a signed body must not be
 * read two ways, so both are refused. The text may not be JSON yet, so every step stays in bounds.
 */
function scanJson(text: string): JsonScan {
  const objects: (Set<string> | null)[] = [];
  let expectKey = false;
  let refusal: AppError | undefined;
  let suspectEscape = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const begin = i;
      let escaped = false;
      for (i++; i < length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) {
          escaped = true;
          i++;
          if (text.charCodeAt(i) === 0x75 && isSuspectEscape(text, i + 1)) suspectEscape = true;
        }
      }
      const keys = objects[objects.length - 1];
      if (expectKey && keys) {
        const key = escaped ? unescapeKey(text.slice(begin, i + 1)) : text.slice(begin + 1, i);
        if (keys.has(key)) refusal ??= new AppError('duplicate_key', `duplicate key ${quoteName(key)} in JSON body`, { field: quoteName(key) });
        if (key === '__proto__') refusal ??= new AppError('malformed_body', 'key __proto__ is not accepted', { field: key });
        keys.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (objects.length >= MAX_DEPTH) throw new AppError('malformed_body', `body nests deeper than ${MAX_DEPTH} levels`);
      objects.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      objects.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      expectKey = objects[objects.length - 1] != null;
    } else if (c === 0x3a) {
      expectKey = false;
    }
  }
  return { refusal, suspectEscape };
}

/** `\u0000` or `\uD800`–`\uDFFF` (a pair is fine, and told apart later). */
function isSuspectEscape(text: string, at: number): boolean {
  const hex = text.slice(at, at + 4);
  if (hex === '0000') return true;
  const first = hex.charCodeAt(0) | 0x20;
  const second = hex.charCodeAt(1) | 0x20;
  return first === 0x64 /* d */ && (second === 0x38 || second === 0x39 || (second >= 0x61 && second <= 0x66));
}

function unescapeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted; // not JSON: JSON.parse of the whole text refuses it
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
    if (predefined === undefined) throw new AppError('forbidden_markup', `undefined entity &${quoteName(ref)}; in XML`);
    return predefined;
  });
}

const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** A CDATA section's text is literal: written as escaped text, it reads back as itself. */
function cdataAsText(text: string): string {
  if (!text.includes('<![CDATA[')) return text;
  return text.replace(CDATA, (_all, literal: string) => literal.replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!));
}

function decodeXml(xml: string, lists: ReadonlySet<string>): SignedBody {
  const text = cdataAsText(xml);
  if (FORBIDDEN_MARKUP.test(text)) throw new AppError('forbidden_markup', 'DOCTYPE and entity declarations are not accepted');
  assertXmlDepth(text);
  if (XMLValidator.validate(text) !== true) throw new AppError('unreadable_body', 'body is not well-formed XML');
  const parser = new XMLParser({
    ignoreAttributes: true,
    parseTagValue: false,
    processEntities: false,
    htmlEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // A value is the text as sent (docs/signing.md), spaces at its ends included; the
    // whitespace that indents elements is dropped by dropIndentation.
    trimValues: false,
    isArray: (_name, jPath) => lists.has(String(jPath).slice(String(jPath).indexOf('.') + 1)),
    tagValueProcessor: (_name, value) => decodeReferences(value),
    // A name is read as sent (the parser writes `toString` as `__toString` by default), so a body
    // signs as its sender signed it and is refused by name like JSON's; names that would reach an
    // object's prototype are refused by the parser itself (parseXml).
    onDangerousProperty: (name: string) => name,
  });
  const document = parseXml(parser, text);
  const root = Object.values(document)[0];
  if (root === undefined || (typeof root === 'string' && root.trim() === '')) return {};
  if (typeof root !== 'object' || root === null) {
    throw new AppError('malformed_body', 'the XML root element must hold the fields as child elements');
  }
  dropIndentation(root);
  refuseRepeats(root, lists, '', '');
  emptyLists(root as Record<string, unknown>, '', lists);
  return root as SignedBody;
}

/**
 * An element repeated where the operation declares no list is a field given twice, refused as a
 * repeated JSON key or form parameter is (4014) rather than read as a list of values nobody meant.
 * `path` is the element's path as the operation declares lists (no indexes), `shown` as answers name it.
 */
function refuseRepeats(node: unknown, lists: ReadonlySet<string>, path: string, shown: string): void {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
  for (const [key, child] of Object.entries(node)) {
    const at = path ? `${path}.${key}` : key;
    const named = shown ? `${shown}.${key}` : key;
    if (!Array.isArray(child)) refuseRepeats(child, lists, at, named);
    else if (!lists.has(at)) {
      const field = quoteName(named);
      throw new AppError('duplicate_key', `${field} is given more than once`, { field });
    } else child.forEach((entry, i) => refuseRepeats(entry, lists, at, `${named}[${i}]`));
  }
}

/**
 * The parser throws plain errors where the validator passed: on an element named `__proto__`,
 * `constructor` or `prototype` (which it will not make a key) and on what it reads otherwise than
 * the validator. Each is the sender's body, refused as such: 400 naming the element, or 415.
 */
function parseXml(parser: XMLParser, text: string): Record<string, unknown> {
  try {
    return parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof AppError) throw error; // decodeReferences' own refusals
    const reserved = /Invalid name: "([^"]*)"/.exec(error instanceof Error ? error.message : '');
    if (reserved) throw new AppError('malformed_body', `element ${reserved[1]} is not accepted`, { field: reserved[1] });
    throw new AppError('unreadable_body', 'body is not well-formed XML');
  }
}

/**
 * A list written as one element with nothing in it (`<capture_orders/>`, `<capture_orders></capture_orders>`)
 * is an empty list, as `[]` in JSON, not a list of one empty entry: a batch then answers 4010
 * naming the list, as for JSON, and the signature, which ignores empty fields, is the same.
 */
function emptyLists(node: Record<string, unknown>, path: string, lists: ReadonlySet<string>): void {
  for (const [key, value] of Object.entries(node)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (lists.has(at) && Array.isArray(value) && value.length === 1 && value[0] === '') {
      node[key] = [];
      continue;
    }
    for (const child of Array.isArray(value) ? value : [value]) {
      if (typeof child === 'object' && child !== null) emptyLists(child as Record<string, unknown>, at, lists);
    }
  }
}

/**
 * Refuses elements nested deeper than the body's containers may be (MAX_DEPTH, plus the leaf
 * element), before the validator and the parser recurse into them. Counts tags only, skipping
 * comments, CDATA, declarations and quoted attribute values; the validator judges the rest.
 */
function assertXmlDepth(text: string): void {
  const length = text.length;
  let depth = 0;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 0x2f /* / */) {
      depth--;
    } else if (next === 0x3f /* ? */ || next === 0x21 /* ! */) {
      const close = text.startsWith('<!--', i) ? '-->' : text.startsWith('<![CDATA[', i) ? ']]>' : '>';
      i = text.indexOf(close, i);
      if (i === -1) return;
    } else {
      let quote = 0;
      let j = i + 1;
      for (; j < length; j++) {
        const c = text.charCodeAt(j);
        if (quote) {
          if (c === quote) quote = 0;
        } else if (c === 0x22 || c === 0x27) {
          quote = c;
        } else if (c === 0x3e) {
          break;
        }
      }
      if (j >= length) return;
      if (text.charCodeAt(j - 1) !== 0x2f && ++depth > MAX_DEPTH + 1) {
        throw new AppError('malformed_body', `body nests deeper than ${MAX_DEPTH} levels`);
      }
      i = j;
    }
  }
}

/**
 * An element holding child elements may hold whitespace between them (indentation), which is no
 * field's text and goes; any other text beside child elements is refused.
 */
function dropIndentation(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  if (!Array.isArray(node) && '#text' in node) {
    const text = (node as Record<string, unknown>)['#text'];
    if (typeof text !== 'string' || text.trim() !== '') {
      throw new AppError('malformed_body', 'XML elements must hold either text or child elements, not both');
    }
    delete (node as Record<string, unknown>)['#text'];
  }
  for (const child of Object.values(node)) dropIndentation(child);
}

/**
 * After the signature is checked: every leaf becomes the text that was signed (numbers and
 * booleans via String()), and null or empty fields are dropped, as the signature ignores them.
 */
export function normaliseBody(node: SignedBody): Record<string, unknown> {
  return normaliseObject(node, { dropped: false });
}

/**
 * normaliseBody, and whether it dropped a field: a dropped field's name is still the sender's, to
 * be admitted or refused as any other (src/http/request-fields.ts).
 */
export function normaliseBodyNoting(node: SignedBody): { body: Record<string, unknown>; dropped: boolean } {
  const seen = { dropped: false };
  const body = normaliseObject(node, seen);
  return { body, dropped: seen.dropped };
}

function normaliseObject(node: SignedBody, seen: { dropped: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    const value = normaliseNode(node[key], seen);
    if (value !== undefined) out[key] = value;
    else seen.dropped = true;
  }
  return out;
}

function normaliseNode(node: SignedNode, seen: { dropped: boolean }): unknown {
  if (node === null || node === undefined || node === '') return undefined;
  if (Array.isArray(node)) return node.map((child) => normaliseNode(child, seen) ?? null);
  if (typeof node === 'object') return normaliseObject(node as SignedBody, seen);
  return String(node);
}
