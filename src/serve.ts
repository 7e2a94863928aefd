// `npm start` / `acquiro serve`: the gateway on PORT, its database owned by this process.
import type { Config } from './config.ts';
import { runCommand } from './cli/commands.ts';
import { hasMerchants } from './app/merchants/credentials.ts';
import { createDemoMerchant } from './app/merchants/demo.ts';
import { claimDataDir, type Ownership } from './db/ownership.ts';
import { createGateway, openConfiguredDatabase, type Gateway } from './gateway.ts';
import { startWorkers } from './jobs/runner.ts';
import { PERIODIC_TASKS } from './jobs/tasks.ts';
import { createLogger } from './logging.ts';

export class StartError extends Error {}

export interface Running {
  readonly gateway: Gateway;
  readonly url: string;
  stop(): Promise<void>;
}

export async function serve(config: Config, print: (text: string) => void = (text) => process.stdout.write(text)): Promise<Running> {
  const log = createLogger(config.logLevel);
  let ownership: Ownership | null = null;
  if (!config.databaseUrl) {
    ownership = await claimDataDir(config.dataDir);
    if (!ownership) {
      throw new StartError(`${config.dataDir} is in use by another acquiro process: stop it, or give this one another ACQUIRO_DATA_DIR`);
    }
  }
  try {
    const database = await openConfiguredDatabase(config);
    const gateway = await createGateway({ config, log, database });
    // Live mode creates no merchant of its own: live merchants are set up by an operator, on a live connector.
    if (config.mode === 'sandbox' && !(await hasMerchants(gateway.deps))) {
      const demo = await createDemoMerchant(gateway.deps);
      print(
        `\nCreated a demo merchant (sandbox credentials; keep the secret key secret; \`acquiro demo\` prints them again):\n` +
          `  merchant_id ${demo.merchant_id}\n  account_id  ${demo.account_id}\n  secret_key  ${demo.secret_key}\n` +
          `  query IPs   ${demo.query_ips.join(', ')}\n\n`,
      );
    }
    const url = await gateway.server.app.listen({ port: config.port, host: config.host });
    ownership?.serveCommands((argv) => runCommand(argv, gateway.deps));
    const workers = config.runWorkers ? startWorkers(gateway.deps, PERIODIC_TASKS) : undefined;
    log.info({ url, mode: config.mode, database: database.kind, workers: Boolean(workers) }, 'acquiro is ready');
    return {
      gateway,
      url,
      async stop() {
        await workers?.stop();
        await gateway.close();
        await database.close();
        await ownership?.release();
      },
    };
  } catch (error) {
    await ownership?.release();
    throw error;
  }
}
