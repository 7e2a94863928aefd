// Logs never carry request bodies. Redaction is the second line of defence: should a card field
// ever reach a log object, it is censored at any of the depths listed.
import pino, { type DestinationStream, type Logger } from 'pino';

const SENSITIVE = ['card', 'security_code', 'pan', 'secret_key', 'secret', 'cvc', 'cvv', 'expiration_month', 'expiration_year'];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const paths = SENSITIVE.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
  return pino({ level, redact: { paths, censor: '[redacted]' }, base: { service: 'acquiro' } }, destination);
}
