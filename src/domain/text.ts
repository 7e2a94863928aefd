// Text the database cannot store: PostgreSQL refuses the NUL character in text and json, and an
// unpaired UTF-16 surrogate is no character at all. Such text is refused where it enters, with
// the field named, rather than failing later in a statement.

/** Whether `text` holds a NUL character or an unpaired surrogate. */
export function isBadText(text: string): boolean {
  return text.includes('\0') || !text.isWellFormed();
}

/**
 * The path (`capture_orders[0].refund_reason`) of the first field whose value, or whose name,
 * holds bad text; undefined when there is none. A bad name is shown with its bad characters
 * replaced by U+FFFD, so the refusal that names it is itself good text.
 */
export function findBadText(node: unknown, path = ''): string | undefined {
  if (typeof node === 'string') return isBadText(node) ? path || 'body' : undefined;
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const found = findBadText(node[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(node)) {
    const at = path ? `${path}.${key}` : key;
    if (isBadText(key)) return path ? `${path}.${printable(key)}` : printable(key);
    const found = findBadText((node as Record<string, unknown>)[key], at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function printable(text: string): string {
  return text.toWellFormed().replaceAll('\0', '\uFFFD');
}

/**
 * A name the sender wrote, fit to quote in a refusal or a log line: at most 64 characters,
 * printable ASCII, and any long run of digits masked as a card number is (`411111******1111`),
 * so a card number typed as a field name is not echoed.
 */
export function quoteName(name: string): string {
  const short = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return short.replace(/[^\x20-\x7e…]/g, '?').replace(/[0-9]{12,}/g, (run) => `${run.slice(0, 6)}${'*'.repeat(run.length - 10)}${run.slice(-4)}`);
}
