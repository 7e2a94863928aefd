// How the tests start Node for their processes: servers with `npm start`'s flags, commands with
// their own, and all of them with Node's compile cache (NODE_COMPILE_CACHE), so each starts from
// code compiled by an earlier one. The cache keeps one set of code per set of V8 flags. On a new
// checkout the cache is empty, the process tests run first and many at once, and each would compile
// every module itself (0.6 to 0.9 s more CPU for a server start); a server stopped with SIGKILL
// never writes what it compiled. So the global setup fills the cache once, before any test, by
// loading the sources and the packages they load, in a process that exits normally.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
export const COMPILE_CACHE = join(ROOT, 'node_modules/.cache/acquiro-node-compile');

// A command's few statements never run the embedded engine's WebAssembly long enough to repay
// V8's optimising compiler, which compiles its hot functions on other threads meanwhile: with the
// baseline compiler alone a command that opens a data directory costs 1.2 s of CPU instead of 1.9
// s, and the suite runs some sixty of them on two cores. The same code runs either way.
export const COMMAND_FLAGS = ['--liftoff-only'];

/** The Node flags of `npm start` (package.json), so tests and the bench run the server as operators do. */
export function startFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts;
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** Every module of src/ a process may load: all but the tests and the two entry points, which run when loaded. */
function sources(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    const name = relative(ROOT, path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'src/main.ts' && name !== 'src/cli/main.ts' ? [path] : [];
  });
}

// Loaded by the sources only when a database is opened.
const PACKAGES = ['pg', 'drizzle-orm/node-postgres', 'drizzle-orm/pglite', '@electric-sql/pglite'];

/**
 * Fills the cache for each set of flags the tests start Node with (workers have none), when it has
 * nothing for this Node yet: on a new checkout, and after an upgrade (Node names each of its folders
 * in the cache `v<version>-<arch>-…`).
 */
export default function setup(): void {
  const ours = `v${process.versions.node}-${process.arch}-`;
  if (existsSync(COMPILE_CACHE) && readdirSync(COMPILE_CACHE).some((name) => name.startsWith(ours))) return;
  const load = [...sources().map((path) => `file://${path}`), ...PACKAGES].map((specifier) => `await import(${JSON.stringify(specifier)});`).join('\n');
  const script = `const { resolveStartupModulesFaster } = await import(${JSON.stringify(`file://${ROOT}src/module-resolution.ts`)});
resolveStartupModulesFaster();
${load}
(await import('node:module')).flushCompileCache();`;
  for (const flags of [[], startFlags(), COMMAND_FLAGS]) fill(flags, script);
}

/** Runs `script` (which loads every module) under `flags`, so the cache gets their code for those flags. */
function fill(flags: readonly string[], script: string): void {
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE }, encoding: 'utf8' });
  // A cache not filled costs time, not correctness: the tests run either way.
  if (run.status !== 0) process.stderr.write(`compile cache not filled (exit ${run.status}): ${run.stderr.slice(0, 2000)}\n`);
}
