// Text from the URL (path parameters, the query string) that the database cannot store, a NUL
// character or an unpaired surrogate, is refused at once with 400 naming the parameter, as the
// body's is (src/http/body/decode.ts). Pages look ids and filters up as typed: such a value would
// otherwise reach a statement and fail it, a 500 and an error line for any visitor's %00.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { findBadText, quoteName } from '../../domain/text.ts';

export function installUrlTextCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const found = findBadText(request.params) ?? findBadText(request.query);
    if (found === undefined) return;
    const name = quoteName(found);
    throw new AppError('invalid_field', `${name} is invalid: expected text without NUL characters or unpaired surrogates`, { field: name });
  });
}
