// How the tests start Node for their processes: servers with `npm start`'s flags (under vitest
// with the commands' WebAssembly flag as well: serverFlags), commands with their own, and all of
// them with Node's compile cache (NODE_COMPILE_CACHE), so each starts from code compiled by an
// earlier one. The cache keeps one set of code per set of V8 flags. On a new checkout the cache is
// empty, the process tests run first and many at once, and each would compile every module itself
// (0.6 to 0.9 s more CPU for a server start); a server stopped with SIGKILL never writes what it
// compiled. So the global setup fills the cache once, before any test, by loading the sources and
// the packages they load, in a process that exits normally.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
export const COMPILE_CACHE = join(ROOT, 'node_modules/.cache/acquiro-node-compile');

// A command's few statements never run the embedded engine's WebAssembly long enough to repay
// V8's optimising compiler, which compiles its hot functions on other threads meanwhile: with the
// baseline compiler alone a command that opens a data directory costs 1.2 s of CPU instead of 1.9
// s, and the suite runs some sixty of them on two cores. The same code runs either way.
export const COMMAND_FLAGS = ['--liftoff-only'];

/** The Node flags of `npm start` (package.json), so the bench runs the server as operators do (the tests: serverFlags). */
export function startFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts;
  return scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * The Node flags of a server the tests start: npm start's, with the embedded engine's WebAssembly
 * on the baseline compiler alone, as for commands (COMMAND_FLAGS). A test's server serves a few
 * requests, too few to repay the optimising compiler's work on the engine (about 0.7 s of CPU per
 * start on PGlite; none on PostgreSQL, which runs no WebAssembly); the same code runs either way.
 * Outside vitest (the bench, the chaos run) servers start with npm start's flags alone.
 */
export function serverFlags(): string[] {
  return process.env.VITEST ? [...startFlags(), ...COMMAND_FLAGS] : startFlags();
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
 * Where a filling of the cache for this Node and these flags is marked as done. Node names its
 * folders in the cache by version, architecture and a hash of its own, so the setup keeps its own
 * marks beside them: one per set of flags and checkout, written only once that set's filling ended
 * well. Node keys each module's code by its path: node_modules copied into another checkout brings
 * marks for code the new paths never get, so a mark names the checkout it was filled from.
 */
function filledMark(flags: readonly string[]): string {
  const hash = createHash('sha256').update(`${ROOT}\n${flags.join(' ')}`).digest('hex').slice(0, 12);
  return join(COMPILE_CACHE, `.filled-v${process.versions.node}-${process.arch}-${hash}`);
}

/**
 * Fills the cache for each set of flags the tests start Node with (workers have none) that it was
 * not yet filled for with this Node: on a new checkout, after an upgrade, and for a set whose
 * filling failed or was cut short.
 */
export default function setup(): void {
  const unfilled = [[], startFlags(), COMMAND_FLAGS, [...startFlags(), ...COMMAND_FLAGS]].filter((flags) => !existsSync(filledMark(flags)));
  if (unfilled.length === 0) return;
  const load = [...sources().map((path) => `file://${path}`), ...PACKAGES].map((specifier) => `await import(${JSON.stringify(specifier)});`).join('\n');
  const script = `const { resolveStartupModulesFaster } = await import(${JSON.stringify(`file://${ROOT}src/module-resolution.ts`)});
resolveStartupModulesFaster();
${load}
(await import('node:module')).flushCompileCache();`;
  for (const flags of unfilled) if (fill(flags, script)) writeFileSync(filledMark(flags), '');
}

/** Runs `script` (which loads every module) under `flags`, so the cache gets their code for those flags; false when it failed. */
function fill(flags: readonly string[], script: string): boolean {
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE }, encoding: 'utf8' });
  // A cache not filled costs time, not correctness: the tests run either way.
  if (run.status !== 0) process.stderr.write(`compile cache not filled (exit ${run.status}): ${run.stderr.slice(0, 2000)}\n`);
  return run.status === 0;
}
