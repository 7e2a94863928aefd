// `npm start` / `acquiro serve`: the gateway on PORT, its database owned by this process.
// Order matters: the port is reserved first, so a start that could not serve writes nothing (not
// even the data directory); the demo merchant is made only once the server listens, so its
// credentials are printed by a server that runs; /health answers 200 only after that.
import { requireLiveBaseUrl, requireLiveFingerprintKey, type Config } from './config.ts';
import { runCommand } from './cli/commands.ts';
import { createDemoMerchantIfEmpty } from './app/merchants/demo.ts';
import { claimDataDir, type Ownership } from './db/ownership.ts';
import { createGateway, type Gateway } from './gateway.ts';
import { startWorkers } from './jobs/runner.ts';
import { PERIODIC_TASKS } from './jobs/tasks.ts';
import { createLogger } from './logging.ts';
import { dataDirProblem, listenOn, openReachableDatabase, reservePort, StartError, warnIfAutovacuumOff } from './startup.ts';

export { StartError } from './startup.ts';

export interface Running {
  readonly gateway: Gateway;
  readonly url: string;
  stop(): Promise<void>;
}

/** Claims the embedded database's directory (on PostgreSQL there is nothing to claim). */
export async function claimConfiguredDataDir(config: Config, inUse: string): Promise<Ownership | null> {
  if (config.databaseUrl) return null;
  let ownership: Ownership | null;
  try {
    ownership = await claimDataDir(config.dataDir, { leaseMs: config.dataDirLeaseMs });
  } catch (error) {
    throw dataDirProblem(config, error);
  }
  if (!ownership) throw new StartError(inUse);
  return ownership;
}

export async function serve(config: Config, print: (text: string) => void = (text) => process.stdout.write(text)): Promise<Running> {
  requireLiveFingerprintKey(config);
  requireLiveBaseUrl(config);
  const log = createLogger(config.logLevel);
  const port = await reservePort(config);
  let ownership: Ownership | null = null;
  let gateway: Gateway | undefined;
  try {
    ownership = await claimConfiguredDataDir(
      config,
      `${config.dataDir} is in use by another acquiro process: stop it, or give this one another ACQUIRO_DATA_DIR`,
    );
    const database = await openReachableDatabase(config);
    gateway = await createGateway({ config, log, database, startsUnready: true }).catch(async (error: unknown) => {
      await database.close();
      throw error;
    });
    await port.release();
    const url = await listenOn(gateway.server.app, config);
    // Live mode creates no merchant of its own: live merchants are set up by an operator, on a live connector.
    const demo = config.mode === 'sandbox' ? await createDemoMerchantIfEmpty(gateway.deps) : null;
    if (demo) {
      print(
        `\nCreated a demo merchant (sandbox credentials; keep the secret key secret; \`acquiro demo\` prints them again):\n` +
          `  merchant_id ${demo.merchant_id}\n  account_id  ${demo.account_id}\n  secret_key  ${demo.secret_key}\n` +
          `  query IPs   ${demo.query_ips.join(', ')}\n\n`,
      );
    }
    ownership?.serveCommands((argv, stdin) => runCommand(argv, gateway!.deps, stdin === undefined ? {} : { stdin: async () => stdin }));
    const workers = config.runWorkers ? startWorkers(gateway.deps, PERIODIC_TASKS) : undefined;
    await warnIfAutovacuumOff(database, log);
    // Ready last, with nothing awaited after it: the caller sets its signal handlers when this
    // returns, and a SIGTERM sent once /health said ready found none yet (the process was killed,
    // not stopped).
    gateway.server.readiness.ready = true;
    log.info({ url, mode: config.mode, database: database.kind, workers: Boolean(workers) }, 'acquiro is ready');
    const running = gateway;
    return {
      gateway: running,
      url,
      async stop() {
        await workers?.stop();
        await running.close();
        await database.close();
        await ownership?.release();
      },
    };
  } catch (error) {
    await port.release();
    if (gateway) {
      await gateway.close().catch(() => {});
      await gateway.deps.database.close().catch(() => {});
    }
    await ownership?.release();
    throw error;
  }
}
