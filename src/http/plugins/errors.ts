// One error handler: every refusal is answered in the operation's own format with a code from
// the catalogue. A fault's detail goes to the log, never to the caller.
import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import { AppError } from '../../domain/errors.ts';
import { quoteName } from '../../domain/text.ts';
import { operationOf, sendAnswer } from '../operation.ts';

/** A client may come back after this many seconds when the database is away. */
const RETRY_AFTER_SECONDS = '1';

/** The refusal of a request the database could not serve because it is away (restarting, failing over). */
export function databaseAway(): AppError {
  return new AppError('service_unavailable', undefined, { headers: { 'retry-after': RETRY_AFTER_SECONDS } });
}

function asAppError(error: FastifyError | AppError): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return databaseAway();
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('body_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('unreadable_body');
  }
  if (error.statusCode === 413) return new AppError('body_too_large');
  if (error.statusCode === 415) return new AppError('unreadable_body');
  return new AppError('internal_error');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    const refusal = asAppError(error);
    if (refusal.codeName === 'internal_error') request.log.error({ err: error }, 'request failed');
    // One line per request while the database is away, without the driver's stack.
    else if (refusal.codeName === 'service_unavailable' && !(error instanceof AppError)) request.log.warn({ code: refusal.code }, 'database unavailable');
    // The field's name only, quoted safely: a sender may type anything as a name.
    else request.log.info({ code: refusal.code, field: refusal.field === undefined ? undefined : quoteName(refusal.field) }, 'request refused');
    if (refusal.headers) reply.headers(refusal.headers);
    const operation = operationOf(request);
    if (!operation) return reply.code(refusal.http).send({ code: refusal.code, message: refusal.message });
    const body = typeof request.body === 'object' && request.body !== null ? (request.body as Record<string, unknown>) : {};
    return sendAnswer(reply, refusal.http, operation.errorAnswer(body, refusal));
  });
}
