// What a process loads: NODE_OPTIONS for a child that writes the URL of every module it loads to
// a file, one a line, so a test can say that `acquiro --help` loads none of the gateway.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.ts';

export interface ModuleLog {
  /** Environment for the child process. */
  readonly env: Record<string, string>;
  /** The modules loaded so far, as paths under the repository (src/cli/main.ts) or node_modules/<package>/... */
  loaded(): string[];
}

const ROOT = new URL('../../', import.meta.url).pathname;

export function moduleLog(): ModuleLog {
  const file = join(tempDir('acquiro-modules-'), 'loaded.txt');
  const hook =
    `import{registerHooks}from'node:module';import{appendFileSync}from'node:fs';` +
    `registerHooks({load(url,context,next){appendFileSync(${JSON.stringify(file)},url+'\\n');return next(url,context);}});`;
  return {
    env: { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(hook)}` },
    loaded: () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((url) => url.startsWith('file://'))
            .map((url) => decodeURIComponent(new URL(url).pathname).replace(ROOT, ''))
        : [],
  };
}
