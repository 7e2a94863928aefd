// Whether an error is a unique violation (SQLSTATE 23505) of the named index or constraint: the
// last word of a claim two writers made at once, which the loser answers by reading the winner's.
import { errorChain } from './error-chain.ts';

export function isUniqueViolation(error: unknown, name: string): boolean {
  for (const cause of errorChain(error)) {
    const { code, constraint } = cause as { code?: unknown; constraint?: unknown };
    if (code === '23505') return constraint === name || (constraint === undefined && cause.message.includes(name));
  }
  return false;
}
