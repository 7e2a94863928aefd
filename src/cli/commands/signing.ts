// sign and call: a merchant's developer signs and sends requests from a shell without building
// canonical strings by hand. Both run in the calling process: no database, no configuration.
// The key comes from the environment (ACQUIRO_SECRET_KEY), never from the command line, where
// other users of the machine could read it in the process list.
import { Option, type Command } from 'commander';
import { verify } from '../../domain/signature.ts';
import { quietFailure, usageError, type Output } from '../io.ts';
import { ANSWER_LISTS, OPERATIONS, REQUEST_LISTS, operationAt, type ClientOperation } from '../operations.ts';

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

// The body parser (XML included), loaded when one of the two commands runs.
const signedBody = () => import('../signed-body.ts');
const bodyDecoder = () => import('../../http/body/decode.ts');

function operationNamed(path: string): ClientOperation {
  const entry = operationAt(path);
  if (!entry) throw usageError(`${path} is not an operation of the gateway; one of ${OPERATIONS.map((op) => op.path).join(', ')}`);
  return entry;
}

function secretKey(): string {
  const key = process.env.ACQUIRO_SECRET_KEY;
  if (!key) throw usageError("set ACQUIRO_SECRET_KEY to the account's secret key (`eval \"$(npx acquiro demo --env)\"` in the sandbox)");
  return key;
}

const ids = () => ({
  ...(process.env.ACQUIRO_MERCHANT_ID ? { merchant_id: process.env.ACQUIRO_MERCHANT_ID } : {}),
  ...(process.env.ACQUIRO_ACCOUNT_ID ? { account_id: process.env.ACQUIRO_ACCOUNT_ID } : {}),
});

async function bodyFrom(io: Output): Promise<string> {
  if (!io.stdin) throw usageError('this command reads the body on its standard input, and runs only from a shell');
  const text = await io.stdin();
  if (!text.trim()) throw usageError('no body on the standard input: pipe a JSON, XML or form body in');
  return text;
}

/**
 * Where `path` is posted: under the gateway's URL, its own path kept (a gateway behind a proxy at
 * https://shop.example/pay/), as the SDK joins its baseUrl. `new URL(path, url)` dropped that path.
 */
function operationUrl(gateway: string, path: string): string {
  let url: URL | undefined;
  try {
    url = new URL(gateway);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw usageError(`--url ${gateway} is not an http(s) URL of the gateway, such as ${DEFAULT_GATEWAY_URL}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}${path}`;
}

/** Whether the answer's encryption_data verifies with the key, as text for the person reading. */
async function verdict(status: number, text: string, key: string): Promise<{ ok: boolean; line: string }> {
  const head = text.trimStart();
  if (/^<!doctype html|^<html/i.test(head)) return { ok: status < 300, line: `HTTP ${status}; an HTML page (not signed)` };
  const { decodeBody } = await bodyDecoder();
  let answer;
  try {
    answer = decodeBody(Buffer.from(text, 'utf8'), ANSWER_LISTS);
  } catch {
    return { ok: false, line: `HTTP ${status}; the answer is not JSON or XML` };
  }
  if (!answer.encryption_data) return { ok: false, line: `HTTP ${status}; the answer carries no encryption_data` };
  return verify(answer, key)
    ? { ok: status < 300, line: `HTTP ${status}; the answer's encryption_data verifies` }
    : { ok: false, line: `HTTP ${status}; the answer's encryption_data does NOT verify with ACQUIRO_SECRET_KEY` };
}

export function signingCommands(program: Command, io: Output): void {
  program
    .command('sign')
    .description(
      'sign a request body read on standard input (JSON, XML or form) with ACQUIRO_SECRET_KEY and print it with its encryption_data; ' +
        'merchant_id and account_id are filled in from ACQUIRO_MERCHANT_ID and ACQUIRO_ACCOUNT_ID when the body lacks them',
    )
    // One thing to print: given both, --signature-only won and --canonical was ignored.
    .addOption(new Option('--signature-only', 'print only the encryption_data (64 hex characters)').conflicts('canonical'))
    .option('--canonical', 'print only the canonical string the signature is over (it holds the card number: do not log it)')
    .option('--path <path>', 'the operation the body is for (e.g. /v1/capture), so a one-entry XML list reads as a list')
    .action(async (opts: { signatureOnly?: boolean; canonical?: boolean; path?: string }) => {
      const key = secretKey();
      const lists = opts.path === undefined ? REQUEST_LISTS : operationNamed(opts.path).lists;
      const body = await bodyFrom(io);
      const { signBody } = await signedBody();
      const signed = signBody(body, key, lists, ids());
      io.out(`${opts.signatureOnly ? signed.signature : opts.canonical ? signed.canonical : signed.text}\n`);
    });

  program
    .command('call')
    .description('sign a request body read on standard input, post it to the gateway, print the answer and whether its signature verifies')
    .argument('<path>', 'the operation, e.g. /v1/authorise')
    .addOption(new Option('--url <url>', 'the gateway').env('ACQUIRO_URL').default(DEFAULT_GATEWAY_URL))
    .option('--idempotency-key <key>', 'an Idempotency-Key header (capture, review, cancel, refund)')
    .addHelpText('after', '\nExit status: 0 for a 2xx answer whose signature verifies; 1 otherwise. The verdict goes to standard error.')
    .action(async (path: string, opts: { url: string; idempotencyKey?: string }) => {
      const key = secretKey();
      const entry = operationNamed(path);
      const target = operationUrl(opts.url, entry.path);
      const body = await bodyFrom(io);
      const { CONTENT_TYPES, formatOf, signBody } = await signedBody();
      const signed = signBody(body, key, entry.lists, ids());
      let response: Response;
      try {
        response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': CONTENT_TYPES[formatOf(signed.text)], ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}) },
          body: signed.text,
        });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
        throw usageError(`cannot reach ${opts.url} (${cause}); is the gateway running? (--url or ACQUIRO_URL)`, 1);
      }
      const text = await response.text();
      io.out(text.endsWith('\n') ? text : `${text}\n`);
      const result = await verdict(response.status, text, key);
      io.err(`${result.line}\n`);
      if (!result.ok) throw quietFailure();
    });
}
