// `npm start`: the gateway, in sandbox on the embedded database unless configured otherwise.
// The resolution hook first; the gateway's modules are loaded after it (src/module-resolution.ts).
import { resolveStartupModulesFaster } from './module-resolution.ts';

resolveStartupModulesFaster();

const { ConfigError, loadConfig } = await import('./config.ts');
const { serve, StartError } = await import('./serve.ts');
const { startFailure } = await import('./startup.ts');
const { failOneLine, stopOnSignals } = await import('./process-stop.ts');
const { CONFIG } = await import('./exit-codes.ts');

const verbose = process.argv.includes('--verbose');
let config: ReturnType<typeof loadConfig> | undefined;
const where = () => config ?? { databaseUrl: process.env.DATABASE_URL, dataDir: process.env.ACQUIRO_DATA_DIR ?? './data' };
// A rejection nothing waited for (a bug): one line, exit 70, as any other unexpected failure.
process.on('unhandledRejection', (error) => failOneLine(error, where(), { what: 'the gateway', verbose }));
try {
  config = loadConfig();
  const running = await serve(config);
  stopOnSignals(running, config, { verbose, announce: (signal) => process.stdout.write(`\n${signal}: stopping\n`) });
} catch (error) {
  if (error instanceof ConfigError || error instanceof StartError) {
    process.stderr.write(`acquiro: ${error.message}\n`);
    process.exit(CONFIG);
  }
  // Past the settings' checks (migrations the database refused, a bug): one line, as `acquiro serve`.
  const failure = startFailure(error, where(), { what: 'the start', verbose });
  process.stderr.write(failure.stderr);
  process.exit(failure.exitCode);
}
