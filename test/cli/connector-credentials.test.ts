// `acquiro accounts connector set --credentials-file`: the file is the operator's, read where the
// operator runs the command (its directory, its permissions), also when the command runs inside
// the process that owns the embedded database (a server started elsewhere, or `acquiro worker`).
import { chmodSync, chownSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../support/gateway.ts';
import { acquiro, migratedDataDir, startServer, startWorker } from '../support/processes.ts';
import { tempDir } from '../support/temp.ts';
import { until } from '../support/until.ts';

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

// Routing to the owning process is the embedded database's; this file makes one of its own whatever
// the project, so it runs once.
describe.runIf(TEST_DB === 'pglite')('acquiro accounts connector set --credentials-file, routed to the owner', () => {
  it('reads a relative path in the operator\'s directory, and standard input through a worker', async () => {
    const dataDir = await migratedDataDir();
    const env = { ACQUIRO_DATA_DIR: dataDir };
    const shop = JSON.parse((await acquiro(['merchants', 'create', '--name', 'Creds shop', '--json'], env)).stdout) as { merchant_id: string; account_id: string };
    const ids = ['--merchant-id', shop.merchant_id, '--account-id', shop.account_id];
    const operatorDir = tempDir('acquiro-operator-');
    writeFileSync(join(operatorDir, 'creds.json'), '{"api_key":"ak_live_relative_1","region":"eu"}', { mode: 0o600 });

    const server = await startServer(env);
    stops.push(async () => void (await server.stop()));
    // The server runs in the checkout; the operator in a directory of its own. The file was looked
    // for in the server's directory: refused as unreadable (or another file of that name taken).
    const routed = await acquiro(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', 'creds.json', '--json'], env, undefined, operatorDir);
    expect([routed.code, routed.stderr]).toEqual([0, '']);
    expect(JSON.parse(routed.stdout)).toEqual({ account_id: shop.account_id, connector: 'simulator', credentials: ['api_key', 'region'], dropped_credentials: [] });
    // A file the operator cannot give is refused by the operator's command, naming the path, exit 2.
    const missing = await acquiro(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', 'nothing.json'], env, undefined, operatorDir);
    expect([missing.code, missing.stderr]).toEqual([2, 'error: --credentials-file nothing.json is not a readable JSON file\n']);
    // One its group or others may read is refused by the operator's command too, naming it, exit 2.
    writeFileSync(join(operatorDir, 'shared.json'), '{"api_key":"ak_live_shared_3"}');
    chmodSync(join(operatorDir, 'shared.json'), 0o644);
    const shared = await acquiro(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', 'shared.json'], env, undefined, operatorDir);
    expect([shared.code, shared.stderr]).toEqual([
      2,
      'error: --credentials-file shared.json can be read or written by its group or others (mode 0644): run chmod 600 shared.json (or give the credentials on standard input with --credentials-file -)\n',
    ]);
    // One another user owns (here `nobody`, uid 65534: the tests run as root) is refused likewise, naming its owner.
    writeFileSync(join(operatorDir, 'theirs.json'), '{"api_key":"ak_live_theirs_4"}', { mode: 0o600 });
    chownSync(join(operatorDir, 'theirs.json'), 65534, 65534);
    const theirs = await acquiro(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', 'theirs.json'], env, undefined, operatorDir);
    expect([theirs.code, theirs.stderr]).toEqual([
      2,
      `error: --credentials-file theirs.json is owned by another user (uid 65534), who can rewrite it: run chown ${process.getuid!()} theirs.json (or give the credentials on standard input with --credentials-file -)\n`,
    ]);
    await server.stop();

    // `acquiro worker` owns the directory now: it gets the caller's standard input as the server does.
    const worker = startWorker(env);
    stops.push(async () => void (await worker.stop()));
    // A minute for both waits.
    const deadline = Date.now() + 60_000;
    await until('the worker claiming the data directory', () => existsSync(join(dataDir, 'acquiro.lock')), { withinMs: 60_000, everyMs: 100, detail: worker.output });
    // Routed once the worker serves commands (before, a command waits, then gives up: exit 78), asked again at once.
    await until('the worker serving commands', async () => (await acquiro(['merchants', 'list', '--json'], env)).code === 0, {
      withinMs: deadline - Date.now(),
      everyMs: 0,
      detail: worker.output,
    });
    const piped = await acquiro(['accounts', 'connector', 'set', ...ids, '--connector', 'simulator', '--credentials-file', '-', '--json'], env, '{"api_key":"ak_live_piped_2"}');
    expect([piped.code, piped.stderr]).toEqual([0, '']);
    expect(JSON.parse(piped.stdout)).toEqual({ account_id: shop.account_id, connector: 'simulator', credentials: ['api_key'], dropped_credentials: [] });
    expect(existsSync(join(dataDir, 'acquiro.lock'))).toBe(true); // it ran in the worker, not as an owner of its own
  });
});
