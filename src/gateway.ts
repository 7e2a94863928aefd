// The composition root: opens the database, migrates, wires use cases to the HTTP server.
import type { Deps } from './app/context.ts';
import { probeSealedData } from './app/vault-probe.ts';
import { createDeps, openConfiguredDatabase, releaseDeps, type DepsOptions } from './deps.ts';
import { buildServer, type Server } from './http/server.ts';

export interface GatewayOptions extends DepsOptions {
  /** Start with /health answering 503 until `server.readiness.ready` is set (a process still starting). */
  readonly startsUnready?: boolean;
}

export interface Gateway {
  readonly deps: Deps;
  readonly server: Server;
  close(): Promise<void>;
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const ownsDatabase = !options.database;
  const database = options.database ?? (await openConfiguredDatabase(options.config));
  const deps = await createDeps({ ...options, database });
  if (deps.config.mode === 'live') await probeSealedData(deps);
  const server = await buildServer(deps, { ready: !options.startsUnready });
  return {
    deps,
    server,
    async close() {
      await server.app.close();
      await releaseDeps(deps);
      if (ownsDatabase) await database.close();
    },
  };
}
