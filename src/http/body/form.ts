// A form body in bracket notation (`capture_orders[0][amount]=10.00`), read in one pass. qs, which
// read forms before, merges every parameter into the tree built so far, and that costs quadratic
// time in the number of list entries (10,000 entries blocked the event loop for seconds, before
// any credential was checked). Here each parameter is placed by walking its own path once, within
// the bounds of limits.ts, so a body costs time linear in its size.
//
// The notation is the one merchants' form encoders write: `name`, `name[key]`, `name[0][key]`.
// What such encoders never write, and what could be read two ways, is refused rather than guessed:
// a parameter given twice, a list index with gaps, `name[]` without an index, one path used both
// as a list and as an object.
import { AppError } from '../../domain/errors.ts';
import type { SignedBody } from '../../domain/signature.ts';
import { quoteName } from '../../domain/text.ts';
import { MAX_DEPTH, MAX_FIELDS, MAX_LIST_ENTRIES } from './limits.ts';

type Container = Record<string, unknown> | unknown[];

const INDEX = /^(0|[1-9][0-9]{0,8})$/;

export function decodeForm(text: string): SignedBody {
  const root: Record<string, unknown> = {};
  const lists: { list: unknown[]; path: string }[] = [];
  let fields = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      if (++fields > MAX_FIELDS) throw new AppError('malformed_body', `form body holds more than ${MAX_FIELDS} fields`);
      const pair = text.slice(start, end);
      const eq = pair.indexOf('=');
      const key = percentDecode(eq === -1 ? pair : pair.slice(0, eq), undefined);
      place(root, key, eq === -1 ? '' : percentDecode(pair.slice(eq + 1), key), lists);
    }
    start = end + 1;
  }
  for (const { list, path } of lists) {
    for (let i = 0; i < list.length; i++) {
      if (list[i] === undefined) {
        const field = quoteName(`${path}[${i}]`);
        throw new AppError('malformed_body', `${field} is missing: list entries are numbered from 0 without gaps`, { field });
      }
    }
  }
  return root as SignedBody;
}

function percentDecode(raw: string, key: string | undefined): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    const field = quoteName(key ?? raw);
    throw new AppError('invalid_field', `${field} is invalid: expected percent-encoded UTF-8`, { field });
  }
}

/** `a[0][b]` → ['a', '0', 'b'] */
function segmentsOf(key: string): string[] {
  const open = key.indexOf('[');
  if (open === 0 || key === '') throw notation(key, 'a field name before any bracket');
  if (open === -1) return [key];
  const segments = [key.slice(0, open)];
  for (let at = open; at < key.length; ) {
    const close = key.indexOf(']', at);
    if (key.charCodeAt(at) !== 0x5b || close === -1) throw notation(key, 'name[key] or name[index] brackets');
    segments.push(key.slice(at + 1, close));
    if (segments.length > MAX_DEPTH) throw new AppError('malformed_body', `body nests deeper than ${MAX_DEPTH} levels`, { field: quoteName(segments[0]!) });
    at = close + 1;
  }
  return segments;
}

function place(root: Record<string, unknown>, key: string, value: string, lists: { list: unknown[]; path: string }[]): void {
  const segments = segmentsOf(key);
  let container: Container = root;
  let path = '';
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s]!;
    let present: unknown;
    let slot: string | number;
    if (Array.isArray(container)) {
      if (!INDEX.test(segment)) throw notation(key, `${quoteName(path)}[0], [1], … for the entries of the list`);
      slot = Number(segment);
      if (slot >= MAX_LIST_ENTRIES) {
        const field = quoteName(path);
        throw new AppError('batch_limit', `${field} holds more than ${MAX_LIST_ENTRIES} entries: at most ${MAX_LIST_ENTRIES} per list`, { field });
      }
      present = container[slot];
      path = `${path}[${slot}]`;
    } else {
      if (segment === '') throw notation(key, 'an index in every [] of a list, as name[0]');
      if (segment === '__proto__') throw new AppError('malformed_body', 'key __proto__ is not accepted', { field: segment });
      slot = segment;
      present = Object.hasOwn(container, slot) ? container[slot] : undefined;
      path = path ? `${path}.${segment}` : segment;
    }
    if (s === segments.length - 1) {
      if (present !== undefined) throw new AppError('duplicate_key', `${quoteName(path)} is given more than once`, { field: quoteName(path) });
      set(container, slot, value);
      return;
    }
    const wantList = INDEX.test(segments[s + 1]!);
    if (present === undefined) {
      const child: Container = wantList ? [] : {};
      if (Array.isArray(child)) lists.push({ list: child, path });
      set(container, slot, child);
      container = child;
    } else if (typeof present !== 'object' || present === null || Array.isArray(present) !== wantList) {
      const field = quoteName(path);
      throw new AppError('malformed_body', `${field} is given both as ${kindOf(present)} and as ${wantList ? 'a list' : 'an object'}`, { field });
    } else {
      container = present as Container;
    }
  }
}

function set(container: Container, slot: string | number, value: unknown): void {
  if (Array.isArray(container)) container[slot as number] = value;
  else container[slot as string] = value;
}

function kindOf(node: unknown): string {
  return Array.isArray(node) ? 'a list' : typeof node === 'object' ? 'an object' : 'a value';
}

function notation(key: string, expected: string): AppError {
  const field = quoteName(key);
  return new AppError('malformed_body', `${field} is not bracket notation: expected ${expected}`, { field });
}
