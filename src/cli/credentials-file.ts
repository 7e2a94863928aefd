// `accounts connector set --credentials-file PATH`: the acquirer's API keys, a JSON object of text
// values. The file is read by the process the operator runs, in its directory and with its
// permissions (src/cli/main.ts), even when the command itself runs inside the server that owns
// the embedded database: that process's directory and file system are not the operator's. It
// hands the text on as the command's standard input, as `--credentials-file -` takes it.
import { readFile } from 'node:fs/promises';
import { usageError } from './io.ts';

/** `--credentials-file -`: the JSON is read from standard input. */
export const FROM_STDIN = '-';

/** The JSON text, refused (exit 2) as one that cannot be parsed or is not an object of text values. */
export function parseCredentials(text: string, shown: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw usageError(`--credentials-file ${shown} is not a readable JSON file`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    throw usageError(`--credentials-file ${shown} must hold one JSON object whose values are text`);
  }
  return parsed as Record<string, string>;
}

/** The file's text, or a refusal naming it (exit 2) when it cannot be read. */
export async function readCredentialsText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    throw usageError(`--credentials-file ${path} is not a readable JSON file`);
  }
}

/**
 * The command line with its `--credentials-file PATH` read here: the path replaced by `-` and the
 * file's text to give as standard input. Null when it names no file (`-`, or no such option).
 * Refuses (exit 2) a file that cannot be read or does not hold credentials, naming the path.
 */
export async function readCredentialsHere(argv: readonly string[]): Promise<{ argv: string[]; text: string } | null> {
  const at = argv.findIndex((arg) => arg === '--credentials-file' || arg.startsWith('--credentials-file='));
  if (at < 0) return null;
  const inline = argv[at]!.startsWith('--credentials-file=');
  const path = inline ? argv[at]!.slice('--credentials-file='.length) : argv[at + 1];
  if (path === undefined || path === FROM_STDIN || path === '') return null;
  const text = await readCredentialsText(path);
  parseCredentials(text, path);
  const rewritten = [...argv];
  rewritten.splice(at, inline ? 1 : 2, '--credentials-file', FROM_STDIN);
  return { argv: rewritten, text };
}
