// `npm start`: the gateway, in sandbox on the embedded database unless configured otherwise.
// The resolution hook first; the gateway's modules are loaded after it (src/module-resolution.ts).
import { resolveStartupModulesFaster } from './module-resolution.ts';

resolveStartupModulesFaster();

const { ConfigError, loadConfig } = await import('./config.ts');
const { serve, StartError } = await import('./serve.ts');
const { startFailure } = await import('./startup.ts');
const { CONFIG } = await import('./exit-codes.ts');

let config: ReturnType<typeof loadConfig> | undefined;
try {
  config = loadConfig();
  const running = await serve(config);
  const stop = async (signal: string) => {
    process.stdout.write(`\n${signal}: stopping\n`);
    await running.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
} catch (error) {
  if (error instanceof ConfigError || error instanceof StartError) {
    process.stderr.write(`acquiro: ${error.message}\n`);
    process.exit(CONFIG);
  }
  // Past the settings' checks (migrations the database refused, a bug): one line, as `acquiro serve`.
  const where = config ?? { databaseUrl: process.env.DATABASE_URL, dataDir: process.env.ACQUIRO_DATA_DIR ?? './data' };
  const failure = startFailure(error, where, { what: 'the start', verbose: process.argv.includes('--verbose') });
  process.stderr.write(failure.stderr);
  process.exit(failure.exitCode);
}
