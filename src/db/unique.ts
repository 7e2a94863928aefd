// Whether an error is a unique violation (SQLSTATE 23505) of the named index or constraint: the
// last word of a claim two writers made at once, which the loser answers by reading the winner's.
export function isUniqueViolation(error: unknown, name: string): boolean {
  // Drizzle wraps the driver's error in its own (`cause`); look down the chain a few steps.
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    const { code, constraint } = cause as { code?: unknown; constraint?: unknown };
    if (code === '23505') return constraint === name || (constraint === undefined && cause.message.includes(name));
  }
  return false;
}
