// Every command `acquiro --help` lists is explained in docs/operations.md, as the README promises
// ("docs/operations.md explains each"): a command table's row names it, or a row of its group
// names it among its alternatives (`ips add|remove|list`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands.ts';

const NO_DATABASE = () => Promise.reject(new Error('help needs no database'));

/** Every runnable command, as the words typed (`accounts fees set`), from the help of each group. */
async function commands(path: readonly string[] = []): Promise<string[]> {
  const help = (await runCommand([...path, '--help'], NO_DATABASE)).stdout;
  const listed = help.split('\nCommands:\n')[1];
  if (!listed) return [path.join(' ')];
  const names = [...listed.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  return (await Promise.all(names.map((name) => commands([...path, name])))).flat();
}

/** The commands the first cell of each row of the page's tables names: `ips add\|remove\|list` is three. */
function documented(page: string): Set<string> {
  const named = new Set<string>();
  for (const row of page.split('\n').filter((line) => line.startsWith('| `'))) {
    const cell = row.slice(1).split(/(?<!\\)\|/)[0]!;
    for (const [, code] of cell.matchAll(/`([^`]+)`/g)) {
      const words = code!.split(' ').filter((word) => /^[a-z][a-z-]*(\\\|[a-z][a-z-]*)*$/.test(word) && !word.startsWith('-'));
      const leading: string[] = [];
      for (const word of code!.split(' ')) {
        if (!words.includes(word)) break;
        leading.push(word);
      }
      if (leading.length === 0) continue;
      const last = leading.pop()!;
      for (const alternative of last.split('\\|')) named.add([...leading, alternative].join(' '));
    }
  }
  return named;
}

describe('docs/operations.md', () => {
  it('explains every command of acquiro --help', async () => {
    const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const all = await commands();
    expect(all.length).toBeGreaterThan(40);
    const explained = documented(page);
    expect(all.filter((command) => !explained.has(command))).toEqual([]);
  });
});
