import { describe, expect, it } from 'vitest';
import { ConfigError, liveBaseUrlProblem, loadConfig } from './config.ts';

const key = Buffer.alloc(32, 7).toString('base64');

describe('configuration', () => {
  it('defaults to the sandbox on the embedded database, on 127.0.0.1:8080', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ mode: 'sandbox', port: 8080, host: '127.0.0.1', databaseUrl: undefined, baseUrl: 'http://127.0.0.1:8080' });
    expect(config.dataDir).toMatch(/\/data$/);
    expect(config.rateLimitPerSecond).toBeGreaterThanOrEqual(100);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT is invalid: expected a port number'],
    [{ PORT: '70000' }, 'PORT is invalid: expected a port number'],
    [{ ACQUIRO_MODE: 'production' }, 'ACQUIRO_MODE is invalid: expected "sandbox" or "live"'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL is invalid: expected a postgres:// or postgresql:// URL'],
    [{ ACQUIRO_VAULT_KEYS: 'k1:short' }, 'ACQUIRO_VAULT_KEYS is invalid'],
    [{ ACQUIRO_VAULT_KEYS: `k1:${key},k1:${key}` }, 'ACQUIRO_VAULT_KEYS is invalid: key ids must be unique'],
    [{ ACQUIRO_RATE_LIMIT: '0' }, 'ACQUIRO_RATE_LIMIT is invalid: expected requests per second per account'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL is invalid'],
    [{ ACQUIRO_REQUEST_TIMEOUT: '30s' }, 'ACQUIRO_REQUEST_TIMEOUT is invalid: expected seconds'],
    [{ ACQUIRO_HEADERS_TIMEOUT: '0' }, 'ACQUIRO_HEADERS_TIMEOUT is invalid: expected more than 0 seconds'],
    [{ ACQUIRO_HEADERS_TIMEOUT: '40' }, 'ACQUIRO_HEADERS_TIMEOUT is invalid: expected at most ACQUIRO_REQUEST_TIMEOUT'],
    [{ ACQUIRO_MAX_CONNECTIONS_PER_CLIENT: '0' }, 'ACQUIRO_MAX_CONNECTIONS_PER_CLIENT is invalid'],
    [{ ACQUIRO_CONNECTOR_TIMEOUT: '0' }, 'ACQUIRO_CONNECTOR_TIMEOUT is invalid: expected more than 0 seconds'],
    [{ ACQUIRO_CONNECTOR_TIMEOUT: '-5' }, 'ACQUIRO_CONNECTOR_TIMEOUT is invalid: expected seconds'],
    [{ ACQUIRO_DATA_DIR_LEASE: '0.5' }, 'ACQUIRO_DATA_DIR_LEASE is invalid: expected at least 1 second'],
    [{ ACQUIRO_DATA_DIR_LEASE: 'ten' }, 'ACQUIRO_DATA_DIR_LEASE is invalid: expected seconds'],
    [{ ACQUIRO_SANDBOX_CARD_DELAY: '1e3' }, 'ACQUIRO_SANDBOX_CARD_DELAY is invalid: expected seconds'],
    [{ ACQUIRO_TRUSTED_PROXIES: '10.0.0.1,bogus' }, 'ACQUIRO_TRUSTED_PROXIES is invalid: bogus is not an IP address or CIDR block'],
    [{ ACQUIRO_TRUSTED_PROXIES: 'loopback' }, 'ACQUIRO_TRUSTED_PROXIES is invalid: loopback is not an IP address or CIDR block'],
  ])('stops on %o with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads ACQUIRO_TRUSTED_PROXIES as addresses and CIDR blocks', () => {
    expect(loadConfig({ ACQUIRO_TRUSTED_PROXIES: ' 10.0.0.1, 192.168.0.0/16,::1 ,' }).trustedProxies).toEqual(['10.0.0.1', '192.168.0.0/16', '::1']);
  });

  it('refuses live mode on the embedded database', () => {
    expect(() => loadConfig({ ACQUIRO_MODE: 'live', ACQUIRO_VAULT_KEYS: `k1:${key}` })).toThrow(/DATABASE_URL is required in live mode/);
  });

  it('refuses live mode without a key for stored cards', () => {
    expect(() => loadConfig({ ACQUIRO_MODE: 'live', DATABASE_URL: 'postgresql://db/acquiro' })).toThrow(/ACQUIRO_VAULT_KEYS is required in live mode/);
  });

  it('starts live mode with both, the first vault key active', () => {
    const config = loadConfig({ ACQUIRO_MODE: 'live', DATABASE_URL: 'postgresql://db/acquiro', ACQUIRO_VAULT_KEYS: `k2:${key},k1:${Buffer.alloc(32, 1).toString('base64')}` });
    expect(config.vaultKeys.map((k) => k.id)).toEqual(['k2', 'k1']);
  });

  it("hashes portal passwords at scrypt's N=2^15 by default; the sandbox takes 10 to 17, live mode 15 to 17", () => {
    const live = { ACQUIRO_MODE: 'live', DATABASE_URL: 'postgresql://db/acquiro', ACQUIRO_VAULT_KEYS: `k1:${key}` };
    expect(loadConfig({}).passwordCost).toBe(15);
    expect(loadConfig(live).passwordCost).toBe(15);
    expect(loadConfig({ ACQUIRO_PASSWORD_COST: '10' }).passwordCost).toBe(10);
    expect(loadConfig({ ...live, ACQUIRO_PASSWORD_COST: '17' }).passwordCost).toBe(17);
    expect(() => loadConfig({ ...live, ACQUIRO_PASSWORD_COST: '14' })).toThrow(/ACQUIRO_PASSWORD_COST is invalid in live mode: expected at least 15/);
    for (const value of ['9', '18', '2^15', '32768']) expect(() => loadConfig({ ACQUIRO_PASSWORD_COST: value })).toThrow(/ACQUIRO_PASSWORD_COST is invalid/);
  });

  it('takes an http:// ACQUIRO_BASE_URL or none in the sandbox; live mode an https:// one only, and hands out no link without one', () => {
    const live = { ACQUIRO_MODE: 'live', DATABASE_URL: 'postgresql://db/acquiro', ACQUIRO_VAULT_KEYS: `k1:${key}` };
    expect(loadConfig({ HOST: '::1', PORT: '9000' })).toMatchObject({ baseUrl: 'http://[::1]:9000', baseUrlConfigured: false });
    expect(liveBaseUrlProblem(loadConfig({}))).toBeUndefined();
    expect(loadConfig({ ACQUIRO_BASE_URL: 'http://gateway.test/' })).toMatchObject({ baseUrl: 'http://gateway.test', baseUrlConfigured: true });
    expect(loadConfig({ ...live, ACQUIRO_BASE_URL: 'https://pay.example.com/' })).toMatchObject({ baseUrl: 'https://pay.example.com', baseUrlConfigured: true });
    expect(liveBaseUrlProblem(loadConfig({ ...live, ACQUIRO_BASE_URL: 'https://pay.example.com' }))).toBeUndefined();
    for (const url of ['http://pay.example.com', 'http://127.0.0.1:8080', 'http://[::1]:8080']) {
      expect(() => loadConfig({ ...live, ACQUIRO_BASE_URL: url })).toThrow(/^ACQUIRO_BASE_URL is invalid in live mode: expected an https:\/\/ URL/);
    }
    for (const url of ['https://pay.example.com/?shop=1', 'https://pay.example.com/#top']) {
      expect(() => loadConfig({ ACQUIRO_BASE_URL: url })).toThrow(/^ACQUIRO_BASE_URL is invalid: expected the public http\(s\) URL of the gateway, without a query or fragment/);
    }
    // Unset, the configuration still loads (a worker and most commands build no link); what hands one out refuses.
    expect(liveBaseUrlProblem(loadConfig(live))).toMatch(/^ACQUIRO_BASE_URL is required in live mode: .* would point at http:\/\/127\.0\.0\.1:8080, the listening address$/);
  });

  it('closes a stalled request within a minute by default, and reads timeouts in seconds', () => {
    const defaults = loadConfig({});
    expect(defaults.timeouts).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
    expect(defaults.maxConnectionsPerClient).toBe(64);
    expect(loadConfig({ ACQUIRO_HEADERS_TIMEOUT: '0.5', ACQUIRO_REQUEST_TIMEOUT: '2.25' }).timeouts).toMatchObject({ headersMs: 500, requestMs: 2250 });
  });

  it('gives a processor 30 s, asks about an unknown outcome 35 s on and leases for 70 s by default; one variable moves all three', () => {
    const defaults = loadConfig({});
    expect(defaults.processor).toEqual({ callTimeoutMs: 30_000, unknownAfterMs: 35_000, leaseMs: 70_000 });
    expect(loadConfig({ ACQUIRO_CONNECTOR_TIMEOUT: '8' }).processor).toEqual({ callTimeoutMs: 8_000, unknownAfterMs: 13_000, leaseMs: 26_000 });
    expect([defaults.dataDirLeaseMs, defaults.sandboxCardDelayMs]).toEqual([10_000, 10_000]);
    expect(loadConfig({ ACQUIRO_DATA_DIR_LEASE: '2.5', ACQUIRO_SANDBOX_CARD_DELAY: '0.25' })).toMatchObject({ dataDirLeaseMs: 2_500, sandboxCardDelayMs: 250 });
  });
});
