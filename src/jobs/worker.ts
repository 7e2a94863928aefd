// `acquiro worker`: the periodic tasks without the HTTP server, for operators who run them apart
// (start the servers with ACQUIRO_WORKERS=off). On PostgreSQL any number of workers share the
// work through row locks. On the embedded database the worker owns the data directory, as
// `serve` does, and runs other `acquiro` commands routed to it.
import { runCommand } from '../cli/commands.ts';
import { requireLiveFingerprintKey, type Config } from '../config.ts';
import type { Ownership } from '../db/ownership.ts';
import { createDeps, releaseDeps } from '../deps.ts';
import { Presence } from '../app/processes/presence.ts';
import { probeSealedData } from '../app/vault-probe.ts';
import { createLogger } from '../logging.ts';
import { claimConfiguredDataDir } from '../serve.ts';
import { openReachableDatabase, warnIfAutovacuumOff } from '../startup.ts';
import { startWorkers } from './runner.ts';
import { PERIODIC_TASKS } from './tasks.ts';

export interface RunningWorker {
  stop(): Promise<void>;
}

export async function runWorker(config: Config): Promise<RunningWorker> {
  requireLiveFingerprintKey(config);
  const log = createLogger(config.logLevel);
  const ownership: Ownership | null = await claimConfiguredDataDir(
    config,
    `${config.dataDir} is in use by another acquiro process, which runs the workers itself unless started with ACQUIRO_WORKERS=off; ` +
      'on the embedded database one process does both: use PostgreSQL (DATABASE_URL) to run workers apart',
  );
  try {
    const database = await openReachableDatabase(config);
    const deps = await createDeps({ config, database, log });
    // As a live gateway: data sealed with keys this process lacks stops the start (exit 78, saying
    // what to do), rather than a worker failing every notification and stored-card charge.
    if (config.mode === 'live') {
      await probeSealedData(deps).catch(async (error: unknown) => {
        await releaseDeps(deps);
        await database.close();
        throw error;
      });
    }
    // As the server does: what the caller read on its standard input (--password-stdin, --credentials-file).
    ownership?.serveCommands((argv, stdin) => runCommand(argv, deps, stdin === undefined ? {} : { stdin: async () => stdin }));
    const workers = startWorkers(deps, PERIODIC_TASKS);
    // Seen in process_heartbeats beside the gateways (an operator's count of running workers).
    const presence = new Presence(deps, 'worker');
    await presence.start();
    await warnIfAutovacuumOff(database, log);
    log.info({ mode: config.mode, database: database.kind, tasks: PERIODIC_TASKS.map((task) => task.name) }, 'acquiro worker is running');
    return {
      async stop() {
        await presence.stop();
        await workers.stop();
        await releaseDeps(deps);
        await database.close();
        await ownership?.release();
      },
    };
  } catch (error) {
    await ownership?.release();
    throw error;
  }
}
