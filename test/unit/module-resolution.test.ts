// The entry points register src/module-resolution.ts before loading anything else, so that
// drizzle-orm's 105 files at start-up skip Node's package lookup (a quarter of a command's CPU in
// Node 24.9, docs/performance.md). Measured in real processes: what reaches Node's resolver.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { drizzleOwnImport } from '../../src/module-resolution.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PROBE = new URL('../support/resolution-probe.ts', import.meta.url).pathname;
const DRIZZLE = `file://${ROOT}node_modules/drizzle-orm/pg-core/table.js`;

/** Runs node with the probe; the counts it printed. */
function reachingNode(args: readonly string[], env: Record<string, string>): Record<string, number> {
  const run = spawnSync(process.execPath, ['--import', PROBE, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: '/tmp', ...env }, encoding: 'utf8', timeout: 60_000 });
  const line = /^resolution-probe (.*)$/m.exec(run.stderr)?.[1];
  if (line === undefined) throw new Error(`no probe line (exit ${run.status}):\n${run.stderr}`);
  return JSON.parse(line) as Record<string, number>;
}

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
    const counts = reachingNode(['src/main.ts'], { PORT: '99999' });
    expect(counts['within drizzle-orm'] ?? 0).toBe(0);
    expect(counts['to drizzle-orm']).toBeLessThanOrEqual(4); // drizzle-orm, /pg-core, /node-postgres, /pglite
    expect(counts['from ours']).toBeGreaterThan(50); // the probe saw the start
  });

  // A command that opens PostgreSQL loads the gateway's modules first; no server listens on port 1.
  it('a command loads drizzle-orm the same way', () => {
    const counts = reachingNode(['bin/acquiro.js', 'merchants', 'list'], { DATABASE_URL: 'postgres://127.0.0.1:1/none', ACQUIRO_MODE: 'sandbox' });
    expect(counts['within drizzle-orm'] ?? 0).toBe(0);
    expect(counts['to drizzle-orm']).toBeGreaterThan(0);
  });
});
