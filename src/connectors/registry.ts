// The connectors this process can route to. The simulator exists only in sandbox mode: live money
// never meets a simulated approval. A real acquirer adapter registers here, beside it.
import type { Clock, Connectors } from '../app/context.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Connector } from './port.ts';
import { createSimulator } from './simulator/index.ts';

/**
 * `clock` is business time (a stored card is declined as expired once its expiry is over on it);
 * `database` keeps the simulator's memory of lost answers (sandbox only; without it, memory).
 */
export function createConnectors(config: Config, extra: readonly Connector[] = [], clock?: Clock, database?: Database): Connectors {
  const all = new Map<string, Connector>();
  if (config.mode === 'sandbox') {
    all.set('simulator', createSimulator({ baseUrl: config.baseUrl, database, slowCardDelayMs: config.sandboxCardDelayMs, ...(clock ? { now: () => clock.now() } : {}) }));
  }
  for (const connector of extra) all.set(connector.name, connector);
  return { get: (name) => all.get(name), names: () => [...all.keys()] };
}
