// `npm start`: the gateway, in sandbox on the embedded database unless configured otherwise.
// The resolution hook first; the gateway's modules are loaded after it (src/module-resolution.ts).
import { resolveStartupModulesFaster } from './module-resolution.ts';

resolveStartupModulesFaster();

const { ConfigError, loadConfig } = await import('./config.ts');
const { serve, StartError } = await import('./serve.ts');

try {
  const running = await serve(loadConfig());
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
    process.exit(78);
  }
  throw error;
}
