// The connectors this process can route to. The simulator exists only in sandbox mode: live money
// never meets a simulated approval. A real acquirer adapter registers here, beside it.
import type { Connectors } from '../app/context.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Connector } from './port.ts';
import { createSimulator } from './simulator/index.ts';

/** `database` keeps the simulator's memory of lost answers (sandbox only); without it, memory. */
export function createConnectors(config: Config, extra: readonly Connector[] = [], database?: Database): Connectors {
  const all = new Map<string, Connector>();
  if (config.mode === 'sandbox') all.set('simulator', createSimulator({ baseUrl: config.baseUrl, database }));
  for (const connector of extra) all.set(connector.name, connector);
  return { get: (name) => all.get(name), names: () => [...all.keys()] };
}
