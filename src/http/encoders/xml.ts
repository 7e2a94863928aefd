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
