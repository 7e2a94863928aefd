// Configuration comes from the environment, is checked once at start, and is typed from here on.
// A bad value stops the start with a message that names the variable.
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { normaliseCidr } from './domain/ip.ts';

/** A duration in seconds, with up to three decimals. */
const SECONDS = /^(0|[1-9][0-9]{0,4})(\.[0-9]{1,3})?$/;
const POSTGRES_URL = /^postgres(ql)?:\/\//;

/**
 * What each variable may hold, when set and not empty: a value matching `pattern`, or one of
 * `oneOf`; `expected` says it in the error. A variable with neither takes any text. (A plain
 * table, not a TypeBox schema: every `acquiro` command reads the configuration, and TypeBox is
 * some 680 modules to load.)
 */
interface Variable {
  readonly pattern?: RegExp;
  readonly oneOf?: readonly string[];
  readonly expected?: string;
}

const VARIABLES: Readonly<Record<string, Variable>> = {
  PORT: { pattern: /^[0-9]{1,5}$/, expected: 'a port number' },
  HOST: {},
  ACQUIRO_MODE: { oneOf: ['sandbox', 'live'], expected: '"sandbox" or "live"' },
  ACQUIRO_DATA_DIR: {},
  DATABASE_URL: { pattern: POSTGRES_URL, expected: 'a postgres:// or postgresql:// URL' },
  ACQUIRO_DB_POOL_SIZE: { pattern: /^[1-9][0-9]{0,2}$/, expected: 'a number of connections from 1 to 999' },
  DATABASE_PREPARED: { oneOf: ['on', 'off'], expected: '"on" or "off" (off behind PgBouncer in transaction mode)' },
  DATABASE_DIRECT_URL: { pattern: POSTGRES_URL, expected: 'a postgres:// or postgresql:// URL of the database itself, not of a pooler' },
  // Links are the base URL with a path appended: a query or a fragment would land in their middle.
  ACQUIRO_BASE_URL: { pattern: /^https?:\/\/[^\s?#]+$/, expected: 'the public http(s) URL of the gateway, without a query or fragment' },
  ACQUIRO_VAULT_KEYS: {
    pattern: /^[A-Za-z0-9_-]+:[A-Za-z0-9+/=]{43,44}(,[A-Za-z0-9_-]+:[A-Za-z0-9+/=]{43,44})*$/,
    expected: 'a comma-separated list of id:base64-of-32-bytes, the first one active',
  },
  ACQUIRO_FINGERPRINT_KEY: { pattern: /^[A-Za-z0-9+/=]{43,44}$/, expected: 'base64 of 32 bytes' },
  ACQUIRO_RATE_LIMIT: { pattern: /^[1-9][0-9]{0,6}$/, expected: 'requests per second per account' },
  ACQUIRO_AUTH_FAILURE_LIMIT: { pattern: /^[1-9][0-9]{0,6}$/, expected: 'failed authentications per client address per minute' },
  ACQUIRO_PORTAL_FAILURE_LIMIT: { pattern: /^[1-9][0-9]{0,6}$/, expected: 'failed portal sign-ins per client address per minute' },
  ACQUIRO_PASSWORD_COST: { pattern: /^1[0-7]$/, expected: "the base-2 logarithm of scrypt's N for new portal passwords, from 10 to 17" },
  ACQUIRO_BUSY_IN_FLIGHT: { pattern: /^[1-9][0-9]{0,5}$/, expected: 'a number of requests in flight' },
  ACQUIRO_KEY_GRACE_HOURS: { pattern: /^[0-9]{1,4}$/, expected: 'hours a rotated secret key keeps working' },
  ACQUIRO_TRUSTED_PROXIES: {},
  ACQUIRO_WORKERS: { oneOf: ['on', 'off'], expected: '"on" or "off"' },
  ACQUIRO_HEADERS_TIMEOUT: { pattern: SECONDS, expected: 'seconds, such as 10 or 2.5' },
  ACQUIRO_REQUEST_TIMEOUT: { pattern: SECONDS, expected: 'seconds, such as 30 or 2.5' },
  ACQUIRO_KEEP_ALIVE_TIMEOUT: { pattern: SECONDS, expected: 'seconds, such as 5 or 0.5' },
  ACQUIRO_MAX_CONNECTIONS_PER_CLIENT: { pattern: /^[1-9][0-9]{0,5}$/, expected: 'a number of connections from 1 to 999999' },
  ACQUIRO_METRICS_ALLOW: {},
  ACQUIRO_CONNECTOR_TIMEOUT: { pattern: SECONDS, expected: 'seconds, such as 30 or 12.5' },
  ACQUIRO_DATA_DIR_LEASE: { pattern: SECONDS, expected: 'seconds, such as 10 or 2.5' },
  ACQUIRO_SANDBOX_CARD_DELAY: { pattern: SECONDS, expected: 'seconds, such as 10 or 2.5' },
  LOG_LEVEL: { oneOf: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], expected: 'one of fatal, error, warn, info, debug, trace, silent' },
};

/** Every variable loadConfig reads (.env.example must list each: test/unit/env-example.test.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(VARIABLES);

export interface VaultKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly mode: 'sandbox' | 'live';
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly dbPoolSize: number;
  /**
   * Named prepared statements on the hot path (on); off sends them unnamed, for a transaction
   * pooler (PgBouncer 1.18 in transaction mode keeps no prepared statement between transactions).
   */
  readonly databasePrepared: boolean;
  /** A connection to PostgreSQL itself for LISTEN, when DATABASE_URL goes through a pooler. */
  readonly databaseDirectUrl: string | undefined;
  /**
   * Where every link the gateway hands out points (hosted payment pages, 3-D Secure and APM
   * pages, portal set-password links): ACQUIRO_BASE_URL, without a trailing slash; when it is not
   * set, http://HOST:PORT, the listening address, which only the sandbox accepts.
   */
  readonly baseUrl: string;
  /** Whether baseUrl came from ACQUIRO_BASE_URL rather than from HOST and PORT (requireLiveBaseUrl). */
  readonly baseUrlConfigured: boolean;
  /** First key encrypts; every key decrypts (rotation). */
  readonly vaultKeys: readonly VaultKey[];
  readonly fingerprintKey: Buffer | undefined;
  readonly rateLimitPerSecond: number;
  /** Failed authentications (unknown account, bad signature) per client address at once and per minute. */
  readonly authFailureLimit: number;
  /** Failed portal sign-ins (the password step) per client address at once and per minute. */
  readonly portalFailureLimit: number;
  /** scrypt's cost for new portal passwords, as the base-2 logarithm of its N (src/app/portal/credentials.ts). */
  readonly passwordCost: number;
  /** Requests in flight from which the gateway shares them out per account. */
  readonly busyInFlight: number;
  readonly keyGraceHours: number;
  readonly trustedProxies: readonly string[];
  readonly runWorkers: boolean;
  /** CIDR blocks that may read /metrics; empty: /metrics is not served. */
  readonly metricsAllow: readonly string[];
  readonly logLevel: string;
  /** How long a client may take to send a request (docs/operations.md, "Timeouts and limits"). */
  readonly timeouts: {
    /** From the connection (or the previous answer) to the request's last header. */
    readonly headersMs: number;
    /** From the connection (or the previous answer) to the request's last body byte. */
    readonly requestMs: number;
    /** How long an idle keep-alive connection stays open after an answer. */
    readonly keepAliveMs: number;
  };
  /** Open connections one client address may hold (trusted proxies excepted). */
  readonly maxConnectionsPerClient: number;
  /** How long the gateway gives a processor, and when it asks again (docs/operations.md, "Processor timers"). */
  readonly processor: ProcessorTimers;
  /**
   * The lease on an embedded data directory (src/db/data-dir-lock.ts): its owner renews the lock
   * five times a lease, and another process takes it over after a lease without renewal.
   */
  readonly dataDirLeaseMs: number;
  /** How long the sandbox holds a merchant-initiated charge of card 4000000000000416, a capture or void of card 4000000000000424, or a `sandbox_slow` refund before its processor receives it. */
  readonly sandboxCardDelayMs: number;
}

export interface ProcessorTimers {
  /** The core's deadline for one connector call: unanswered by then, the outcome is pending. */
  readonly callTimeoutMs: number;
  /**
   * Wall time from a claim (or a pending answer) to the first "ask the processor again": the
   * call's deadline and 5 s more (the moment between the claim's commit and the call's start), so
   * no live call is second-guessed and the processor is never asked about a call it may not have
   * received yet.
   */
  readonly unknownAfterMs: number;
  /**
   * A sweeper's lease on a row it takes to the processor (twice unknownAfterMs): longer than a
   * call can take, so a lease only runs out when its worker is gone.
   */
  readonly leaseMs: number;
}

/**
 * scrypt's N for new portal passwords is 2 to this power. OWASP's floor is 2^17 (with r=8, p=1);
 * 2^15 keeps a sign-in near 50 ms on a small server while lockout (src/app/portal/sign-in.ts) caps
 * online guessing. Operators with the CPU to spare raise it (up to 17); live mode refuses less.
 */
export const DEFAULT_PASSWORD_COST = 15;

/** The defaults: a processor has 30 s to answer; an unknown outcome is asked about 35 s on. */
export const CONNECTOR_TIMEOUT_SECONDS = 30;
/** Between the claim's commit and the call's start, with room to spare. */
const CALL_START_MARGIN_MS = 5_000;

export function processorTimers(callTimeoutMs: number): ProcessorTimers {
  const unknownAfterMs = callTimeoutMs + CALL_START_MARGIN_MS;
  return { callTimeoutMs, unknownAfterMs, leaseMs: 2 * unknownAfterMs };
}

export class ConfigError extends Error {}

/**
 * A live gateway or worker starts only with ACQUIRO_FINGERPRINT_KEY set: without it, card and
 * request fingerprints (idempotency, velocity, blocked cards, the hosted page's signInfo) come from
 * the first vault key, and the documented rotation (a new key first) changed every one of them.
 * Commands still run without it: `acquiro vault fingerprint-key` prints the key in use, to set.
 */
export function requireLiveFingerprintKey(config: Pick<Config, 'mode' | 'fingerprintKey'>): void {
  if (config.mode === 'live' && !config.fingerprintKey) {
    throw new ConfigError(
      'ACQUIRO_FINGERPRINT_KEY is required in live mode: without it card and request fingerprints come from the first vault key, ' +
        'and change when a new vault key is put first; set it to what `acquiro vault fingerprint-key` prints with this ACQUIRO_VAULT_KEYS, ' +
        'so the fingerprints made so far keep matching',
    );
  }
}

/**
 * Why this live configuration cannot hand out links (undefined when it can). The default base URL
 * is the listening address (a loopback or internal one behind a proxy): in live mode hosted
 * payment pages and portal set-password links would send shoppers and staff there. Checked by what
 * hands out links (`acquiro serve`, `acquiro users create` and `reset`), not by every command: a
 * worker builds none.
 */
export function liveBaseUrlProblem(config: Pick<Config, 'mode' | 'baseUrl' | 'baseUrlConfigured'>): string | undefined {
  if (config.mode !== 'live' || config.baseUrlConfigured) return undefined;
  return (
    'ACQUIRO_BASE_URL is required in live mode: set it to the public https:// URL shoppers and portal staff reach the gateway at ' +
    `(such as https://pay.example.com); without it hosted payment pages and portal set-password links would point at ${config.baseUrl}, the listening address`
  );
}

export function requireLiveBaseUrl(config: Pick<Config, 'mode' | 'baseUrl' | 'baseUrlConfigured'>): void {
  const problem = liveBaseUrlProblem(config);
  if (problem) throw new ConfigError(problem);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const [name, { pattern, oneOf, expected }] of Object.entries(VARIABLES)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    if ((pattern && !pattern.test(value)) || (oneOf && !oneOf.includes(value))) throw new ConfigError(`${name} is invalid: expected ${expected}`);
    relevant[name] = value;
  }
  const mode = (relevant.ACQUIRO_MODE as Config['mode'] | undefined) ?? 'sandbox';
  const port = Number(relevant.PORT ?? 8080);
  if (port > 65535) throw new ConfigError('PORT is invalid: expected a port number');
  const host = relevant.HOST ?? '127.0.0.1';
  const vaultKeys = parseVaultKeys(relevant.ACQUIRO_VAULT_KEYS);
  const databaseUrl = relevant.DATABASE_URL;

  if (mode === 'live' && !databaseUrl) {
    throw new ConfigError('DATABASE_URL is required in live mode: the embedded database is for the sandbox only');
  }
  if (mode === 'live' && vaultKeys.length === 0) {
    throw new ConfigError('ACQUIRO_VAULT_KEYS is required in live mode: stored cards and secrets must be encrypted');
  }
  // Card details on the hosted page and staff passwords in the portal travel over whatever scheme
  // the links name: live mode refuses plain http, whatever the host (a base URL is only text in
  // links; the TLS itself may end at a proxy in front of the gateway).
  if (mode === 'live' && relevant.ACQUIRO_BASE_URL && !relevant.ACQUIRO_BASE_URL.startsWith('https://')) {
    throw new ConfigError(
      'ACQUIRO_BASE_URL is invalid in live mode: expected an https:// URL; hosted payment pages, 3-D Secure and APM pages and portal set-password links ' +
        'are built from it, and over http card details and staff passwords would cross the network in clear',
    );
  }
  const passwordCost = Number(relevant.ACQUIRO_PASSWORD_COST ?? DEFAULT_PASSWORD_COST);
  if (mode === 'live' && passwordCost < DEFAULT_PASSWORD_COST) {
    throw new ConfigError(`ACQUIRO_PASSWORD_COST is invalid in live mode: expected at least ${DEFAULT_PASSWORD_COST} (lower costs are for tests in the sandbox)`);
  }

  const timeouts = {
    headersMs: seconds(relevant, 'ACQUIRO_HEADERS_TIMEOUT', 10),
    requestMs: seconds(relevant, 'ACQUIRO_REQUEST_TIMEOUT', 30),
    keepAliveMs: seconds(relevant, 'ACQUIRO_KEEP_ALIVE_TIMEOUT', 5),
  };
  const dataDirLeaseMs = seconds(relevant, 'ACQUIRO_DATA_DIR_LEASE', 10);
  if (dataDirLeaseMs < 1_000) throw new ConfigError('ACQUIRO_DATA_DIR_LEASE is invalid: expected at least 1 second (its owner renews the lock five times a lease)');
  if (timeouts.headersMs > timeouts.requestMs) {
    throw new ConfigError('ACQUIRO_HEADERS_TIMEOUT is invalid: expected at most ACQUIRO_REQUEST_TIMEOUT (the headers are part of the request)');
  }

  return {
    port,
    host,
    mode,
    dataDir: resolve(relevant.ACQUIRO_DATA_DIR ?? './data'),
    databaseUrl,
    dbPoolSize: Number(relevant.ACQUIRO_DB_POOL_SIZE ?? 10),
    databasePrepared: (relevant.DATABASE_PREPARED ?? 'on') === 'on',
    databaseDirectUrl: relevant.DATABASE_DIRECT_URL,
    baseUrl: (relevant.ACQUIRO_BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    baseUrlConfigured: relevant.ACQUIRO_BASE_URL !== undefined,
    vaultKeys,
    fingerprintKey: relevant.ACQUIRO_FINGERPRINT_KEY ? decodeKey('ACQUIRO_FINGERPRINT_KEY', relevant.ACQUIRO_FINGERPRINT_KEY) : undefined,
    rateLimitPerSecond: Number(relevant.ACQUIRO_RATE_LIMIT ?? 200),
    authFailureLimit: Number(relevant.ACQUIRO_AUTH_FAILURE_LIMIT ?? 30),
    portalFailureLimit: Number(relevant.ACQUIRO_PORTAL_FAILURE_LIMIT ?? 10),
    passwordCost,
    busyInFlight: Number(relevant.ACQUIRO_BUSY_IN_FLIGHT ?? 2 * Number(relevant.ACQUIRO_DB_POOL_SIZE ?? 10)),
    keyGraceHours: Number(relevant.ACQUIRO_KEY_GRACE_HOURS ?? 24),
    trustedProxies: parseTrustedProxies(relevant.ACQUIRO_TRUSTED_PROXIES),
    runWorkers: (relevant.ACQUIRO_WORKERS ?? 'on') === 'on',
    metricsAllow: parseMetricsAllow(relevant.ACQUIRO_METRICS_ALLOW),
    logLevel: relevant.LOG_LEVEL ?? 'info',
    timeouts,
    maxConnectionsPerClient: Number(relevant.ACQUIRO_MAX_CONNECTIONS_PER_CLIENT ?? 64),
    processor: processorTimers(seconds(relevant, 'ACQUIRO_CONNECTOR_TIMEOUT', CONNECTOR_TIMEOUT_SECONDS)),
    dataDirLeaseMs,
    sandboxCardDelayMs: seconds(relevant, 'ACQUIRO_SANDBOX_CARD_DELAY', 10),
  };
}

function seconds(env: Record<string, string | undefined>, variable: string, fallback: number): number {
  const ms = Math.round(Number(env[variable] ?? fallback) * 1000);
  if (ms <= 0) throw new ConfigError(`${variable} is invalid: expected more than 0 seconds`);
  return ms;
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

function parseMetricsAllow(text: string | undefined): string[] {
  if (text === undefined) return LOOPBACK;
  if (text.trim() === 'off') return [];
  const cidrs = text.split(',').map((cidr) => cidr.trim()).filter(Boolean);
  for (const cidr of cidrs) {
    if (!ipaddr.isValidCIDR(cidr)) throw new ConfigError(`ACQUIRO_METRICS_ALLOW is invalid: ${cidr} is not a CIDR block such as 10.0.0.0/8`);
  }
  return cidrs;
}

// Checked here, not left to Fastify: an entry it cannot read stopped the start with its stack
// trace and exit 1, and one it reads by name (`loopback`) was trusted for X-Forwarded-For but
// still counted against the per-client connection cap (src/http/connections.ts reads addresses
// and blocks only).
function parseTrustedProxies(text: string | undefined): string[] {
  const entries = (text ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!normaliseCidr(entry)) throw new ConfigError(`ACQUIRO_TRUSTED_PROXIES is invalid: ${entry} is not an IP address or CIDR block such as 10.0.0.0/8`);
  }
  return entries;
}

function decodeKey(variable: string, base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new ConfigError(`${variable} is invalid: expected base64 of 32 bytes`);
  return key;
}

function parseVaultKeys(text: string | undefined): VaultKey[] {
  if (!text) return [];
  const keys = text.split(',').map((entry) => {
    const [id, base64] = entry.split(':') as [string, string];
    return { id, key: decodeKey('ACQUIRO_VAULT_KEYS', base64) };
  });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) {
    throw new ConfigError('ACQUIRO_VAULT_KEYS is invalid: key ids must be unique');
  }
  return keys;
}
