// `accounts connector set --credentials-file PATH`: the acquirer's API keys, a JSON object of text
// values. The file is read by the process the operator runs, in its directory and with its
// permissions (src/cli/main.ts), even when the command itself runs inside the server that owns
// the embedded database: that process's directory and file system are not the operator's. It
// hands the text on as the command's standard input, as `--credentials-file -` takes it.
import type { Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { CommanderError } from 'commander';
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

/** Permission bits that let the file's group or anyone else read or write it. */
const SHARED = 0o077;

/** The superuser's uid: a file it owns is taken, as ssh takes it (it can read and write any file anyway). */
const ROOT = 0;

/**
 * The file's text, or a refusal naming it (exit 2) when it cannot be read, or when it is a file
 * owned by another user than the one running the command and root (that user can rewrite it at
 * will, whatever its mode), or one its group or others may read or write: API keys are refused as
 * ssh refuses such a private key or configuration file. The owner and mode are read from the file
 * opened (no swap between the check and the read); a pipe (`<(secret-manager read …)`) is read
 * once and left nowhere, so only a regular file is checked. Windows has no uids or such modes.
 */
export async function readCredentialsText(path: string): Promise<string> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch {
    throw usageError(`--credentials-file ${path} is not a readable JSON file`);
  }
  try {
    const stat = await file.stat();
    if (process.platform !== 'win32' && stat.isFile()) assertPrivate(path, stat);
    return await file.readFile('utf8');
  } catch (error) {
    if (error instanceof CommanderError) throw error;
    throw usageError(`--credentials-file ${path} is not a readable JSON file`);
  } finally {
    await file.close();
  }
}

/** Refuses (exit 2) a regular file another user owns (root aside), or its group or others may read or write. */
function assertPrivate(path: string, stat: Stats): void {
  const me = process.getuid?.();
  if (me !== undefined && stat.uid !== me && stat.uid !== ROOT) {
    throw usageError(`--credentials-file ${path} is owned by another user (uid ${stat.uid}), who can rewrite it: run chown ${me} ${path} (or give the credentials on standard input with --credentials-file -)`);
  }
  if ((stat.mode & SHARED) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    throw usageError(`--credentials-file ${path} can be read or written by its group or others (mode ${mode}): run chmod 600 ${path} (or give the credentials on standard input with --credentials-file -)`);
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
