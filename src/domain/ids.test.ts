// Ids sort by creation time; event ids (notify_id) also within one millisecond, as
// docs/notifications.md promises merchants who order a transaction's events by them.
import { describe, expect, it } from 'vitest';
import { newEventId, newId } from './ids.ts';

describe('ids', () => {
  it('carry their prefix, ten characters of time and sixteen of randomness', () => {
    expect(newId('T', 0)).toMatch(/^T0{10}[0-9A-HJKMNP-TV-Z]{16}$/);
    expect(newEventId()).toMatch(/^EV[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newId('PO', 1_000) < newId('PO', 1_001)).toBe(true);
  });

  it('make event ids that sort in the order they were made, also within one millisecond', () => {
    const at = Date.parse('2026-11-22T10:15:00Z');
    const made = Array.from({ length: 500 }, () => newEventId(at));
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    const later = newEventId(at + 1);
    expect(later > made.at(-1)!).toBe(true);
    expect(later.slice(12)).not.toBe(made.at(-1)!.slice(12));
  });
});
