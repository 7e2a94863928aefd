import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger, queryName, redactLine, safeError } from './logging.ts';

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

describe('redaction of card fields in a log object', () => {
  const lines = (write: (log: ReturnType<typeof createLogger>) => void) => {
    let text = '';
    write(createLogger('info', new Writable({ write: (chunk, _encoding, done) => ((text += String(chunk)), done()) })));
    return text;
  };

  it('masks a sensitive key at the first three depths, in objects and lists, and leaves the caller\'s object as it was', () => {
    const body = { card: '4111111111111111', order: { pan: '4111111111111111', items: [{ cvc: '123' }] }, note: 'kept' };
    const text = lines((log) => log.info({ body, security_code: '123', reqs: [{ secret_key: 'sk_live' }] }, 'line'));
    expect(text).not.toMatch(/4111|sk_live/);
    expect(text).toContain('"security_code":"[redacted]"');
    expect(text).toContain('"body":{"card":"[redacted]","order":{"pan":"[redacted]","items":[{"cvc":"123"}]},"note":"kept"}');
    expect(body.card).toBe('4111111111111111');
  });

  it('hands back a line with nothing to mask as it is, without copying it', () => {
    const line = { method: 'POST', url: '/v1/authorise', status: 200, ms: 3, account: 'A1', nested: { a: { b: 1 } } };
    expect(redactLine(line)).toBe(line);
  });
});
