// Logs never carry request bodies, nor anything taken from one. Two things would bring it in:
// - an error's message: a database error's names the query and lists its parameters (the stored
//   request, with names, addresses and whatever was typed into free text), and V8's JSON errors
//   quote the text they choke on. So errors are logged by kind only (safeError below): their
//   class, code, constraint, table, column, the query's name and the stack's frames, never a message.
// - a card field in a log object: redaction is the second line of defence, at the first three
//   depths (redactLine below).
import pino, { type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';
import type prettyStream from 'pino-pretty';

const SENSITIVE: ReadonlySet<string> = new Set(['card', 'security_code', 'pan', 'secret_key', 'secret', 'cvc', 'cvv', 'expiration_month', 'expiration_year']);
const CENSOR = '[redacted]';
const REDACTED_DEPTHS = 3;

/**
 * The log object with every sensitive key at its first three depths (`card`, `*.card`,
 * `*.*.card`) replaced by "[redacted]", the caller's object untouched. pino's own `redact` option
 * did the same by copying the listed paths of every line, a twentieth of the server's CPU on the
 * payment path (docs/performance.md); this walk copies only the objects on the way to a sensitive
 * key, and nearly every line holds none. Errors are left to their serializer (safeError).
 */
export function redactLine<T extends object>(object: T, depth = 1): T {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = (object as Record<string, unknown>)[key];
    let kept = value;
    if (SENSITIVE.has(key)) kept = CENSOR;
    else if (depth < REDACTED_DEPTHS && typeof value === 'object' && value !== null && !(value instanceof Error)) kept = redactLine(value, depth + 1);
    if (kept !== value) {
      copy ??= (Array.isArray(object) ? [...object] : { ...object }) as Record<string, unknown>;
      copy[key] = kept;
    }
  }
  return (copy ?? object) as T;
}

/** Fields of an error that name things (PostgreSQL's error fields, Node's and Fastify's codes), never values. */
const NAMING_FIELDS = ['code', 'constraint', 'table', 'column', 'schema', 'routine', 'severity', 'statusCode'] as const;

const IDENTIFIER = '("?[A-Za-z_][A-Za-z0-9_]*"?(?:\\."?[A-Za-z_][A-Za-z0-9_]*"?)?)';
const WRITE = new RegExp(`\\b(insert\\s+into|update|delete\\s+from)\\s+${IDENTIFIER}`, 'i');
const READ = new RegExp(`\\bfrom\\s+${IDENTIFIER}`, 'i');

/**
 * `insert into "payments"`: what a statement writes (or else reads), identifiers only, so a
 * query's text can name it in a log line without any value it may hold.
 */
export function queryName(sql: string): string | undefined {
  const write = WRITE.exec(sql);
  if (write) return `${write[1]!.toLowerCase().replace(/\s+/, ' ')} ${write[2]}`;
  const read = READ.exec(sql);
  if (read) return `select from ${read[1]}`;
  return /^\s*([A-Za-z_][A-Za-z0-9_-]*)/.exec(sql)?.[1]; // a prepared statement's name, or the verb
}

/** What may be logged of an error: what kind it is and where it was thrown, nothing it was told. */
export function safeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return typeof error === 'object' && error !== null ? { type: typeof error } : error;
  const fields = error as unknown as Record<string, unknown>;
  // PGlite's class names are minified: a PostgreSQL error is told by its fields.
  const isDatabaseError = typeof fields.severity === 'string' && typeof fields.code === 'string';
  const out: Record<string, unknown> = { type: isDatabaseError ? 'DatabaseError' : error.constructor?.name || error.name };
  for (const key of NAMING_FIELDS) {
    const value = fields[key];
    if (typeof value === 'string' || typeof value === 'number') out[key] = value;
  }
  // `statement`: set by src/db/client.ts; `query`: drizzle's and PGlite's errors carry the text.
  const statement = fields.statement ?? fields.query;
  if (typeof statement === 'string') out.query = queryName(statement);
  if (typeof error.stack === 'string') out.stack = error.stack.split('\n').filter((line) => /^\s+at /.test(line)).join('\n');
  if (error.cause !== undefined && depth < 3) out.cause = safeError(error.cause, depth + 1);
  return out;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      formatters: { log: redactLine },
      base: { service: 'acquiro' },
      serializers: { err: (error: unknown) => safeError(error), error: (error: unknown) => safeError(error) },
      hooks: {
        // `log.error(error)` would take the error's message as the line's message.
        logMethod(args, method) {
          const [first, ...rest] = args as unknown[];
          if (first instanceof Error) {
            const message = typeof rest[0] === 'string' ? rest[0] : 'error';
            return method.call(this, { err: first }, message);
          }
          return method.apply(this, args);
        },
      },
    },
    destination ?? terminalStream(),
  );
}

/**
 * A person at a terminal reads lines (time, level, message, fields); anything else (a file, a pipe,
 * a log collector) gets one JSON object per line. Redaction happens before either is written.
 */
function terminalStream(): DestinationStream {
  if (!process.stdout.isTTY) return (standardOutput ??= turnBatchedStream());
  // Loaded only for a terminal: its 30 modules are a twentieth of a command's start otherwise.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof prettyStream;
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}

let standardOutput: DestinationStream | undefined;

/**
 * Standard output written once per turn of the event loop: the lines logged in one turn (a batch
 * of coalesced authorisations answers dozens of requests at once) go out in one write at its end,
 * instead of a system call each, which was 7 % of the server's busy time at load
 * (docs/performance.md). A line waits for nothing but the end of its turn; lines still waiting
 * when the process exits (an uncaught error, a signal's shutdown) are written then.
 */
function turnBatchedStream(): DestinationStream {
  const out = pino.destination({ dest: 1, sync: true });
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const lines = pending;
    pending = '';
    out.write(lines);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      if (pending === '') setImmediate(flush);
      pending += line;
    },
  };
}
