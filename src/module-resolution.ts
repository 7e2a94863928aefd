// Resolves drizzle-orm's imports of its own files without Node's package lookup, which costs a
// process start about 0.3 s of CPU in Node 24.9 (a quarter of a CLI command's; docs/performance.md,
// "Process start-up"). For every import it resolves, Node finds the nearest package.json and
// deserialises all of it, and drizzle-orm's holds a 179 KB `exports` map: the 105 files of it a
// start loads import each other about 400 times, each parsing that map again. Those imports are
// relative paths with the `.js` extension inside a `"type": "module"` package, so the file and its
// format are known without asking. And our 40 source files that import `drizzle-orm` made Node read that map once
// each (it keeps a resolution per importing file): a package's name imported from our sources
// resolves to one file whichever of them imports it, so the first answer is kept. Everything else
// resolves as Node does.
//
// The entry points (src/main.ts, bin/acquiro.js) call resolveStartupModulesFaster() first and
// load the rest after it with a dynamic import: a static graph is resolved before any of its
// modules runs.
import { registerHooks, type ResolveFnOutput, type ResolveHookSync } from 'node:module';

const DRIZZLE_FILES = '/node_modules/drizzle-orm/';

/** A relative import of one drizzle-orm ES module file from another, answered as Node would answer it. */
export function drizzleOwnImport(specifier: string, parentURL: string | undefined): string | undefined {
  if (parentURL === undefined || !parentURL.startsWith('file:') || !parentURL.includes(DRIZZLE_FILES)) return undefined;
  if (!(specifier.startsWith('./') || specifier.startsWith('../')) || !specifier.endsWith('.js')) return undefined;
  const url = new URL(specifier, parentURL);
  // A path that climbs out of the package is not drizzle-orm's own file.
  return url.href.includes(DRIZZLE_FILES) ? url.href : undefined;
}

const SOURCES = new URL('./', import.meta.url).href;

/** A package imported by name (`drizzle-orm`, `fastify/x`) from one of our source files. */
function packageFromSources(specifier: string, parentURL: string | undefined): boolean {
  return parentURL !== undefined && parentURL.startsWith(SOURCES) && !/^(?:\.|\/|node:|file:|data:|#)/.test(specifier);
}

const resolvedForSources = new Map<string, ResolveFnOutput>();

/** The hook: the two shortcuts above, and Node's own resolution for everything else. */
const resolve: ResolveHookSync = (specifier, context, nextResolve) => {
  const url = drizzleOwnImport(specifier, context.parentURL);
  if (url !== undefined) return { url, format: 'module', shortCircuit: true };
  if (!packageFromSources(specifier, context.parentURL)) return nextResolve(specifier, context);
  // `import` and `require` may resolve one name to different files.
  const key = `${specifier}\0${context.conditions.join(',')}`;
  const known = resolvedForSources.get(key);
  if (known !== undefined) return { ...known, shortCircuit: true };
  const resolved = nextResolve(specifier, context);
  resolvedForSources.set(key, resolved);
  return resolved;
};

/** Registers the hook for the modules this process loads from now on. */
export function resolveStartupModulesFaster(): void {
  registerHooks({ resolve });
}
