// `--json` as docs/operations.md promises it: every command that prints something takes it, and
// prints one JSON value. Walked through the commands' own help, so a command added without it
// fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);

/** What a command's help lists under "Commands:": the names of its subcommands. */
function subcommands(help: string): string[] {
  const section = help.split(/^Commands:\n/m)[1];
  if (!section) return [];
  return [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

/** Every command that runs (a leaf of the tree), as its words. */
async function leaves(path: string[] = []): Promise<string[][]> {
  const help = await acquiro(...path, '--help');
  expect(help.exitCode).toBe(0);
  const names = subcommands(help.stdout);
  if (names.length === 0) return [path];
  return (await Promise.all(names.map((name) => leaves([...path, name])))).flat();
}

// What prints no value of its own: a request body and the gateway's answer (sign, call), and the
// processes that run until stopped.
const WITHOUT_JSON = new Set(['sign', 'call', 'serve', 'worker']);

describe('--json', () => {
  it('is an option of every command that prints something', async () => {
    const commands = (await leaves()).filter((path) => !WITHOUT_JSON.has(path[0]!));
    expect(commands.length).toBeGreaterThan(50);
    const lacking: string[] = [];
    for (const path of commands) {
      if (!/^ {2}--json\b/m.test((await acquiro(...path, '--help')).stdout)) lacking.push(path.join(' '));
    }
    expect(lacking).toEqual([]);
  });

  it('prints one JSON value for clock show and advance, migrate and vault reseal', async () => {
    const shown = await acquiro('clock', 'show', '--json');
    expect(shown.exitCode).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({ business_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/) });
    const advanced = await acquiro('clock', 'advance', '--hours', '1', '--json');
    expect(advanced.exitCode).toBe(0);
    expect(Date.parse(JSON.parse(advanced.stdout).business_time) - Date.parse(JSON.parse(shown.stdout).business_time)).toBeGreaterThanOrEqual(3_600_000 - 1_000);

    const migrated = await acquiro('migrate', '--json');
    expect([migrated.exitCode, JSON.parse(migrated.stdout)]).toEqual([0, { applied: [] }]);

    await gw.merchant();
    const resealed = await acquiro('vault', 'reseal', '--json');
    expect(resealed.exitCode).toBe(0);
    expect(JSON.parse(resealed.stdout)).toEqual({ vault_key: gw.gateway.deps.vault.activeKeyId, tokens: expect.any(Number), keys: expect.any(Number), connectors: expect.any(Number) });
  });
});

describe('--json with --env', () => {
  // Both print the credentials, as JSON and as shell exports: merchants create printed the exports
  // (and demo the JSON), so a script asking for JSON could get a shell's text.
  it.each([[['merchants', 'create', '--name', 'Two ways']], [['demo']]])('acquiro %j refuses both at once, naming them: exit 2, nothing created', async (command) => {
    const count = async () => (await gw.database.query<{ n: number }>('SELECT count(*)::int AS n FROM merchants'))[0]!.n;
    const before = await count();
    for (const flags of [['--json', '--env'], ['--env', '--json']]) {
      const run = await acquiro(...command, ...flags);
      expect([run.exitCode, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toMatch(/^error: option '--(json|env)' cannot be used with option '--(env|json)'\n$/);
    }
    expect(await count()).toBe(before);
  });
});
