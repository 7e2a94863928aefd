// A small XML writer for our own answers: known element names, escaped text, lists as repeated
// elements of the list's name (docs/api/authorise.md, docs/signing.md).

// A carriage return is written as a reference: every XML reader turns a raw CR LF, or a lone CR,
// into LF (XML 1.0, end-of-line handling), and would read, and verify, another value than the one
// signed (a note typed on Windows, say).
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (c) => ESCAPES[c]!);
}

function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return `<${name}></${name}>`;
  if (Array.isArray(value)) return value.map((entry) => element(name, entry)).join('');
  if (typeof value === 'object') {
    const inner = Object.entries(value as Record<string, unknown>)
      .map(([key, child]) => element(key, child))
      .join('');
    return `<${name}>${inner}</${name}>`;
  }
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function toXml(root: string, fields: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, fields)}`;
}

// XML 1.0 has no way to write these characters, not even as references (its Char production):
// a document holding one is not XML, and no reader takes it.
// eslint-disable-next-line no-control-regex -- these characters are what it finds
const NOT_XML_CHARACTER = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
const NOT_XML_CHARACTERS = new RegExp(NOT_XML_CHARACTER.source, 'g');

/**
 * `fields` with every character XML cannot carry (a control character a merchant typed in a
 * note, say) replaced by U+FFFD. Applied before an XML answer is signed, so that it signs what
 * is written, and the answer is a document every XML reader reads and verifies. Almost no answer
 * holds one: those are returned as they are, without a copy.
 */
export function xmlText<T>(fields: T): T {
  return holdsNotXml(fields) ? replaceNotXml(fields) : fields;
}

function holdsNotXml(node: unknown): boolean {
  if (typeof node === 'string') return NOT_XML_CHARACTER.test(node);
  if (typeof node !== 'object' || node === null) return false;
  return (Array.isArray(node) ? node : Object.values(node)).some(holdsNotXml);
}

function replaceNotXml<T>(node: T): T {
  if (typeof node === 'string') return node.replace(NOT_XML_CHARACTERS, '\uFFFD') as T;
  if (Array.isArray(node)) return node.map(replaceNotXml) as T;
  if (typeof node === 'object' && node !== null) {
    return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, replaceNotXml(child)])) as T;
  }
  return node;
}
