import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, queryName, safeError } from './logging.ts';

describe('what is logged of an error', () => {
  it('names a statement by what it writes or reads, identifiers only', () => {
    expect(queryName(`with claimed as (insert into payments (id, note) values ($1, 'x 4111111111111111') returning *) select * from claimed`)).toBe(
      'insert into payments',
    );
    expect(queryName('update "refunds" set status = $1 where id = $2')).toBe('update "refunds"');
    expect(queryName('select id from public.payments where order_no = $1')).toBe('select from public.payments');
    expect(queryName('claim_payment')).toBe('claim_payment');
  });

  it('keeps the kind, code, constraint and statement of an error, and none of its message or parameters', () => {
    const cause = Object.assign(new Error('new row violates check constraint "c" Failing row contains (Ann, 4111111111111111)'), {
      code: '23514',
      constraint: 'c',
      table: 'payments',
      detail: 'Failing row contains (Ann, 4111111111111111)',
    });
    const wrapped = Object.assign(new Error('Failed query: insert into payments values ($1)\nparams: Ann,4111111111111111', { cause }), {
      query: 'insert into payments values ($1)',
      params: ['Ann', '4111111111111111'],
    });
    const safe = safeError(wrapped) as Record<string, unknown>;
    expect(safe).toMatchObject({ type: 'Error', query: 'insert into payments', cause: { code: '23514', constraint: 'c', table: 'payments' } });
    expect(JSON.stringify(safe)).not.toMatch(/Ann|4111|Failing|params/);
  });

  it('never takes an error\'s message as the line\'s message, nor quotes the text JSON.parse choked on', () => {
    let text = '';
    const log = createLogger('info', new Writable({ write: (chunk, _encoding, done) => ((text += String(chunk)), done()) }));
    try {
      JSON.parse('{"card":"4111111111111111",');
    } catch (error) {
      log.error(error);
      log.error({ err: error }, 'request failed');
    }
    expect(text).toContain('"msg":"error"');
    expect(text).toContain('"type":"SyntaxError"');
    expect(text).not.toContain('4111');
  });
});
