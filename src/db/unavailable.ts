// Whether an error means "the database cannot be reached right now" (it is restarting, crashed,
// or refuses connections), as opposed to a fault in what was asked of it. Such a request is
// answered 503 with a code a merchant may retry on, never 500, and the pool's next connection
// tries the server again: nothing needs restarting once PostgreSQL is back.

import { errorChain } from './error-chain.ts';

/** Socket-level codes node-postgres passes on from Node. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATEs of a server going away or not yet accepting: admin or crash shutdown, starting up, too many connections. */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres' own texts for a connection lost or never made (they carry no code). */
const CLIENT_TEXTS = [/^Connection terminated/, /timeout exceeded when trying to connect/, /^Client has encountered a connection error/, /^Client was closed/];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const cause of errorChain(error)) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_STATES.has(code) || code.startsWith('08'))) return true;
    if (CLIENT_TEXTS.some((text) => text.test(cause.message))) return true;
  }
  return false;
}
