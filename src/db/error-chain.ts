// The errors a database call can throw, outermost first: Drizzle wraps the driver's error in its
// own (`cause`), so what the driver said is a few steps down.
export function* errorChain(error: unknown, depth = 4): Generator<Error> {
  for (let cause = error, step = 0; cause instanceof Error && step < depth; cause = cause.cause, step++) yield cause;
}
