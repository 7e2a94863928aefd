// The errors a database call can throw, outermost first: Drizzle wraps the driver's error in its
// own (`cause`), so what the driver said is a few steps down.
export function* errorChain(error: unknown, depth = 4): Generator<Error> {
  for (let cause = error, step = 0; cause instanceof Error && step < depth; cause = cause.cause, step++) yield cause;
}

/**
 * The SQLSTATE the database answered, if a cause in the chain carries one: five digits or capitals
 * with a digit among them (a system error's EPERM has none). It says what kind of error it was
 * without quoting anything of the statement or its values.
 */
export function sqlStateOf(error: unknown): string | undefined {
  for (const cause of errorChain(error)) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^(?=.*[0-9])[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
