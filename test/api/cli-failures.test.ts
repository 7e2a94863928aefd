// `acquiro` when a command fails in a way it did not expect (the database refuses a statement):
// one line an operator can act on and a non-zero exit, never the statement and its values, which
// may be merchants' data; `--verbose` prints the error in full (docs/operations.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

let gw: TestGateway;
const NAME = 'Refused Shop Ltd, 12 Private Lane';

beforeAll(async () => {
  gw = await startTestGateway();
  // A refusal the command cannot foresee: the database's own rule, here a check on the name.
  await gw.database.query(`ALTER TABLE merchants ADD CONSTRAINT merchants_name_test CHECK (name <> '${NAME}')`);
});
afterAll(() => gw?.close());

const acquiro = (...argv: string[]) => runCommand(argv, gw.gateway.deps);

describe('a database error in a command', () => {
  it('prints one line with the SQLSTATE and exits 70, without the statement or its values', async () => {
    const run = await acquiro('merchants', 'create', '--name', NAME, '--json');
    expect(run.exitCode).toBe(70);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      "error: the database refused a statement of the command (SQLSTATE 23514): run it again with --verbose to print the error in full (it may quote merchants' data)\n",
    );
  });

  it('prints the error in full with --verbose, before or after the command', async () => {
    for (const argv of [['--verbose', 'merchants', 'create', '--name', NAME], ['merchants', 'create', '--name', NAME, '--verbose']]) {
      const run = await acquiro(...argv);
      expect(run.exitCode).toBe(70);
      expect(run.stderr).toContain(NAME);
      expect(run.stderr).toContain('merchants_name_test');
      expect(run.stderr.trimEnd().split('\n').at(-1)).toBe('error: the database refused a statement of the command (SQLSTATE 23514)');
    }
  });

  it('leaves the refusals the command knows as they were (exit 1, exit 2)', async () => {
    expect(await acquiro('ips', 'list', '--merchant-id', 'M1', '--account-id', 'A1')).toMatchObject({ exitCode: 1, stderr: 'error: no account A1 under merchant M1\n' });
    expect((await acquiro('merchants', 'create')).exitCode).toBe(2);
  });
});
