// Logs never carry request bodies. Redaction is the second line of defence: should a card field
// ever reach a log object, it is censored at any of the depths listed.
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

const SENSITIVE = ['card', 'security_code', 'pan', 'secret_key', 'secret', 'cvc', 'cvv', 'expiration_month', 'expiration_year'];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const paths = SENSITIVE.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
  return pino({ level, redact: { paths, censor: '[redacted]' }, base: { service: 'acquiro' } }, destination ?? terminalStream());
}

/**
 * A person at a terminal reads lines (time, level, message, fields); anything else (a file, a pipe,
 * a log collector) gets one JSON object per line. Redaction happens before either is written.
 */
function terminalStream(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}
