// Reads the gateway's XML answers (`<respon>…</respon>`): elements that hold either text or
// other elements, text escaped with the five XML entities or character references. Not a
// general XML parser, and it needs none: the gateway writes no attributes, namespaces or mixed
// content. A DOCTYPE is refused, so no entity can expand.

export type XmlValue = string | XmlObject | XmlValue[];
export interface XmlObject {
  [name: string]: XmlValue;
}

const NAME = /[A-Za-z_][\w.:-]*/y;
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const MAX_DEPTH = 32;

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    const known = ENTITIES[entity];
    if (known === undefined) throw new Error(`unknown XML entity ${whole}`);
    return known;
  });
}

interface Element {
  readonly name: string;
  readonly children: Element[];
  text: string;
}

class Reader {
  #at = 0;
  readonly source: string;
  constructor(source: string) {
    this.source = source;
  }

  document(): Element {
    this.#misc();
    const root = this.#element(0);
    this.#misc();
    if (this.#at < this.source.length) this.#fail('content after the root element');
    return root;
  }

  #fail(what: string): never {
    throw new Error(`unreadable XML answer: ${what} at offset ${this.#at}`);
  }

  #skipPast(end: string): string {
    const found = this.source.indexOf(end, this.#at);
    if (found < 0) this.#fail(`missing ${end}`);
    const skipped = this.source.slice(this.#at, found);
    this.#at = found + end.length;
    return skipped;
  }

  /** Whitespace, the XML declaration, processing instructions and comments. */
  #misc(): void {
    for (;;) {
      while (/\s/.test(this.source[this.#at] ?? '')) this.#at++;
      if (this.source.startsWith('<?', this.#at)) this.#skipPast('?>');
      else if (this.source.startsWith('<!--', this.#at)) this.#skipPast('-->');
      else if (this.source.startsWith('<!', this.#at)) this.#fail('DOCTYPE or declaration');
      else return;
    }
  }

  #name(): string {
    NAME.lastIndex = this.#at;
    const match = NAME.exec(this.source);
    if (!match) this.#fail('expected an element name');
    this.#at += match[0].length;
    return match[0];
  }

  #element(depth: number): Element {
    if (depth > MAX_DEPTH) this.#fail('elements nested too deep');
    if (this.source[this.#at] !== '<') this.#fail('expected an element');
    this.#at++;
    const element: Element = { name: this.#name(), children: [], text: '' };
    // Attributes carry nothing the answers use; quoted values may hold '>'.
    for (;;) {
      const c = this.source[this.#at];
      if (c === undefined) this.#fail('unterminated start tag');
      if (c === '"' || c === "'") {
        this.#at++;
        this.#skipPast(c);
      } else if (this.source.startsWith('/>', this.#at)) {
        this.#at += 2;
        return element;
      } else if (c === '>') {
        this.#at++;
        break;
      } else this.#at++;
    }
    for (;;) {
      if (this.#at >= this.source.length) this.#fail(`unterminated <${element.name}>`);
      if (this.source.startsWith('</', this.#at)) {
        this.#at += 2;
        if (this.#name() !== element.name) this.#fail(`mismatched end of <${element.name}>`);
        this.#skipPast('>');
        return element;
      }
      if (this.source.startsWith('<![CDATA[', this.#at)) {
        this.#at += 9;
        element.text += this.#skipPast(']]>');
      } else if (this.source.startsWith('<!--', this.#at)) this.#skipPast('-->');
      else if (this.source.startsWith('<?', this.#at)) this.#skipPast('?>');
      else if (this.source[this.#at] === '<') element.children.push(this.#element(depth + 1));
      else {
        const end = this.source.indexOf('<', this.#at);
        const stop = end < 0 ? this.source.length : end;
        element.text += decode(this.source.slice(this.#at, stop));
        this.#at = stop;
      }
    }
  }
}

function valueOf(element: Element, path: string, lists: ReadonlySet<string>): XmlValue {
  if (element.children.length === 0) return element.text;
  const groups = new Map<string, XmlValue[]>();
  for (const child of element.children) {
    const value = valueOf(child, path === '' ? child.name : `${path}.${child.name}`, lists);
    const group = groups.get(child.name);
    if (group) group.push(value);
    else groups.set(child.name, [value]);
  }
  const object: XmlObject = {};
  for (const [name, values] of groups) {
    if (!lists.has(path === '' ? name : `${path}.${name}`)) object[name] = values.length === 1 ? values[0]! : values;
    // A list field is a list even with one entry; one empty element is an empty list.
    else object[name] = values.length === 1 && values[0] === '' ? [] : values;
  }
  return object;
}

/**
 * The children of the document's root element as an object: text as strings, nested elements
 * as objects, repeated elements as lists. `lists` names (dotted paths below the root) the fields
 * that are lists even with one entry.
 */
export function readXml(source: string, lists: ReadonlySet<string> = new Set()): { root: string; fields: XmlObject } {
  const root = new Reader(source).document();
  const value = valueOf(root, '', lists);
  return { root: root.name, fields: typeof value === 'string' ? {} : (value as XmlObject) };
}
