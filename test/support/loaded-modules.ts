// What a process loads and resolves: NODE_OPTIONS for a child whose module hook writes a line to a
// file at every call, so a test can say that `acquiro --help` loads none of the gateway, or what
// of a start still reaches Node's own resolver.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A child's hook (`load` or `resolve`, given the log file as a JS string literal) and the lines it wrote so far. */
function hookLog(hook: (file: string) => string): { env: Record<string, string>; lines(): string[] } {
  const file = join(tempDir('acquiro-modules-'), 'log.txt');
  const source = `import{registerHooks}from'node:module';import{appendFileSync}from'node:fs';registerHooks({${hook(JSON.stringify(file))}});`;
  return {
    env: { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(source)}` },
    lines: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : []),
  };
}

export interface ModuleLog {
  /** Environment for the child process. */
  readonly env: Record<string, string>;
  /** The modules loaded so far, as paths under the repository (src/cli/main.ts) or node_modules/<package>/... */
  loaded(): string[];
}

export function moduleLog(): ModuleLog {
  const log = hookLog((file) => `load(url,context,next){appendFileSync(${file},url+'\\n');return next(url,context);}`);
  return {
    env: log.env,
    loaded: () =>
      log
        .lines()
        .filter((url) => url.startsWith('file://'))
        .map((url) => decodeURIComponent(new URL(url).pathname).replace(ROOT, '')),
  };
}

export interface Resolution {
  readonly specifier: string;
  /** The importing module's URL ('' for the entry point). */
  readonly parent: string;
}

export interface ResolutionLog {
  /** Environment for the child process. */
  readonly env: Record<string, string>;
  /**
   * The resolutions that reached Node's own resolver so far. The hook is registered before the
   * process's own (src/module-resolution.ts), and hooks registered later run first: it sees only
   * what those pass on.
   */
  reachingNode(): Resolution[];
}

export function resolutionLog(): ResolutionLog {
  const log = hookLog((file) => `resolve(specifier,context,next){appendFileSync(${file},JSON.stringify([specifier,context.parentURL??''])+'\\n');return next(specifier,context);}`);
  return {
    env: log.env,
    reachingNode: () =>
      log.lines().map((line) => {
        const [specifier, parent] = JSON.parse(line) as [string, string];
        return { specifier, parent };
      }),
  };
}
