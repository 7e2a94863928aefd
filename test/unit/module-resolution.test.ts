// The entry points register src/module-resolution.ts before loading anything else, so that
// drizzle-orm's 105 files at start-up skip Node's package lookup (a quarter of a command's CPU in
// Node 24.9, docs/performance.md). Measured in real processes: what reaches Node's resolver.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { drizzleOwnImport } from '../../src/module-resolution.ts';
import { resolutionLog, type Resolution } from '../support/loaded-modules.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const DRIZZLE = `file://${ROOT}node_modules/drizzle-orm/pg-core/table.js`;

/** Runs node to its end with the resolution log; what reached Node's resolver. */
function reachingNode(args: readonly string[], env: Record<string, string>): Resolution[] {
  const log = resolutionLog();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: '/tmp', ...env, ...log.env }, encoding: 'utf8', timeout: 60_000 });
  const resolutions = log.reachingNode();
  if (resolutions.length === 0) throw new Error(`nothing resolved (exit ${run.status}):\n${run.stderr}`);
  return resolutions;
}

/** Relative imports from one drizzle-orm file to another. */
const withinDrizzle = (resolutions: Resolution[]) => resolutions.filter((r) => r.parent.includes('/node_modules/drizzle-orm/') && r.specifier.startsWith('.')).length;
/** Imports by drizzle-orm's name (`drizzle-orm`, `drizzle-orm/pg-core`). */
const byDrizzleName = (resolutions: Resolution[]) => resolutions.filter((r) => r.specifier === 'drizzle-orm' || r.specifier.startsWith('drizzle-orm/')).length;

describe('module resolution at start-up', () => {
  it("answers drizzle-orm's relative imports of its own .js files, and nothing else", () => {
    expect(drizzleOwnImport('./columns/text.js', DRIZZLE)).toBe(`file://${ROOT}node_modules/drizzle-orm/pg-core/columns/text.js`);
    expect(drizzleOwnImport('../entity.js', DRIZZLE)).toBe(`file://${ROOT}node_modules/drizzle-orm/entity.js`);
    expect(drizzleOwnImport('../../pg/index.js', DRIZZLE)).toBeUndefined(); // out of the package
    expect(drizzleOwnImport('./columns/text.cjs', DRIZZLE)).toBeUndefined();
    expect(drizzleOwnImport('./columns/text', DRIZZLE)).toBeUndefined();
    expect(drizzleOwnImport('pg', DRIZZLE)).toBeUndefined();
    expect(drizzleOwnImport('./x.js', `file://${ROOT}src/db/client.ts`)).toBeUndefined();
    expect(drizzleOwnImport('./x.js', undefined)).toBeUndefined();
  });

  // The server's start, stopped by its configuration once every module is loaded (serve.ts imports the gateway).
  it('the server loads drizzle-orm with its own files and each package of ours resolved once', () => {
    const resolutions = reachingNode(['src/main.ts'], { PORT: '99999' });
    expect(withinDrizzle(resolutions)).toBe(0);
    expect(byDrizzleName(resolutions)).toBeLessThanOrEqual(4); // drizzle-orm, /pg-core, /node-postgres, /pglite
    expect(resolutions.filter((r) => r.parent.startsWith(`file://${ROOT}src/`)).length).toBeGreaterThan(50); // the log saw the start
  });

  // A command that opens PostgreSQL loads the gateway's modules first; no server listens on port 1.
  it('a command loads drizzle-orm the same way', () => {
    const resolutions = reachingNode(['bin/acquiro.js', 'merchants', 'list'], { DATABASE_URL: 'postgres://127.0.0.1:1/none', ACQUIRO_MODE: 'sandbox' });
    expect(withinDrizzle(resolutions)).toBe(0);
    expect(byDrizzleName(resolutions)).toBeGreaterThan(0);
  });
});
