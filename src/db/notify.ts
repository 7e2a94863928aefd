// The payload of our NOTIFYs. Apart from src/db/client.ts, so that a module that only announces
// (the sandbox clock's repository, which the CLI's light commands import) loads no driver.

/**
 * NOTIFY is heard by every connection of the database that listens, whatever its schema: other
 * installs sharing the database (and other test files) would each empty this one's caches. A
 * payload `schema:rest`, as `notifyingSchema` writes it, is heard only in that schema; any other
 * payload (a process of an earlier release) everywhere.
 */
export function inSchema(own: string, onNotify: () => void): (payload: string | undefined) => void {
  return (payload) => {
    const end = payload?.lastIndexOf(':') ?? -1;
    if (end < 0 || payload!.slice(0, end) === own) onNotify();
  };
}

/** SQL text of a NOTIFY payload that only listeners in the caller's schema hear (inSchema). */
export const notifyingSchema = (rest: string) => `current_schema() || ':' || ${rest}`;
