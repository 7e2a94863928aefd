// GET /metrics: Prometheus text with request rates, latencies and outcomes per operation, the
// notification queue, the sweepers' backlogs and the database pool; loopback-only by default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment } from '../support/fixtures.ts';
import { FakeClock, startTestGateway, TEST_DB, type TestGateway } from '../support/gateway.ts';

let test: TestGateway;
beforeAll(async () => {
  test = await startTestGateway();
});
afterAll(() => test.close());

const scrape = (remoteAddress = '127.0.0.1', url = '/metrics') => test.gateway.server.app.inject({ method: 'GET', url, remoteAddress });

/** The value of one sample line, e.g. `acquiro_http_requests_total{operation="authorise",status="200"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('counts requests per operation and status, with their latency', async () => {
    const client = await test.merchant();
    const before = (await scrape()).body;
    const approved = sample(before, 'acquiro_http_requests_total', { operation: 'authorise', status: '200' }) ?? 0;
    for (let i = 0; i < 3; i++) expect((await client.post('/v1/authorise', cardPayment(client.ids))).status).toBe(200);
    expect((await client.post('/v1/authorise', cardPayment(client.ids, { amount: '1.234' }))).status).toBe(400);

    const response = await scrape();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.body;
    expect(sample(text, 'acquiro_http_requests_total', { operation: 'authorise', status: '200' })).toBe(approved + 3);
    expect(sample(text, 'acquiro_http_requests_total', { operation: 'authorise', status: '400' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acquiro_http_request_duration_seconds_count', { operation: 'authorise' })).toBeGreaterThanOrEqual(approved + 4);
    expect(sample(text, 'acquiro_http_request_duration_seconds_bucket', { operation: 'authorise', le: '+Inf' })).toBeGreaterThanOrEqual(4);
    // The event loop's delay comes with the process metrics.
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it("counts the hot path's claims and outcomes, the statements they shared, and their waits", async () => {
    const client = await test.merchant({ rateLimitPerSecond: 1_000 });
    const before = (await scrape()).body;
    const claims = sample(before, 'acquiro_hot_path_requests_total', { statement: 'claim' }) ?? 0;
    const statements = sample(before, 'acquiro_hot_path_statements_total', { statement: 'claim' }) ?? 0;
    const waited = (text: string, name: string) => sample(text, `acquiro_hot_path_${name}_seconds_total`, { statement: 'claim' }) ?? 0;
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.post('/v1/authorise', cardPayment(client.ids))));
    const seconds = (performance.now() - started) / 1000;
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const text = (await scrape()).body;
    // Ten claims' waits, each within its own request's lifetime: in seconds, and summed.
    const toGo = waited(text, 'wait') - waited(before, 'wait');
    const toAnswer = waited(text, 'answer') - waited(before, 'answer');
    expect(toGo).toBeGreaterThanOrEqual(0);
    expect(toAnswer).toBeGreaterThan(0);
    expect(toGo + toAnswer).toBeLessThanOrEqual(10 * seconds);
    expect(sample(text, 'acquiro_hot_path_requests_total', { statement: 'claim' })).toBe(claims + 10);
    expect(sample(text, 'acquiro_hot_path_requests_total', { statement: 'outcome' })).toBeGreaterThanOrEqual(10);
    const shared = sample(text, 'acquiro_hot_path_statements_total', { statement: 'claim' })! - statements;
    expect(shared).toBeGreaterThanOrEqual(1);
    expect(shared).toBeLessThan(10);
    expect(sample(text, 'acquiro_hot_path_fallbacks_total', { statement: 'claim' })).toBe(0);
  });

  it('labels a request by its route, never by its URL or query', async () => {
    await test.gateway.server.app.inject({ method: 'GET', url: '/health?token=s3cr3t-value' });
    await test.gateway.server.app.inject({ method: 'GET', url: '/no/such/page-s3cr3t' });
    const text = (await scrape()).body;
    expect(sample(text, 'acquiro_http_requests_total', { operation: 'route:/health', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acquiro_http_requests_total', { operation: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('s3cr3t');
  });

  it('reads the notification queue and the sweepers backlogs from the database', async () => {
    const client = await test.merchant();
    const before = sample((await scrape()).body, 'acquiro_notifications_pending') ?? 0;
    // No worker runs in this gateway: the payment's event waits in the queue.
    const paid = await client.post('/v1/authorise', cardPayment(client.ids, { notify_url: 'http://127.0.0.1:9/hook' }));
    expect(paid.body.order_status).toBe('1');
    const text = (await scrape()).body;
    expect(sample(text, 'acquiro_notifications_pending')).toBe(before + 1);
    expect(sample(text, 'acquiro_notifications_oldest_age_seconds')).toBeGreaterThanOrEqual(0);
    for (const name of ['acquiro_payments_outcome_unknown', 'acquiro_operations_pending', 'acquiro_refunds_pending', 'acquiro_dispute_reports_held']) {
      expect(sample(text, name), name).toBe(0);
    }
    expect(sample(text, 'acquiro_database_up')).toBe(1);
  });

  it.runIf(TEST_DB === 'postgres')('shows the database pool', async () => {
    const text = (await scrape()).body;
    expect(sample(text, 'acquiro_db_pool_max')).toBe(10);
    expect(sample(text, 'acquiro_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'acquiro_db_pool_waiting')).toBe(0);
    const inUse = sample(text, 'acquiro_db_pool_in_use');
    expect(inUse).toBeGreaterThanOrEqual(0);
    expect(inUse).toBe(sample(text, 'acquiro_db_pool_connections')! - sample(text, 'acquiro_db_pool_idle')!);
  });

  it('is refused to addresses outside ACQUIRO_METRICS_ALLOW', async () => {
    const refused = await scrape('203.0.113.7');
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain('acquiro_');
    expect((await scrape('::1')).statusCode).toBe(200);
  });
});

describe('the sweepers queues', () => {
  const QUEUES = ['unknown_payments', 'abandoned_payments', 'expiring_authorisations', 'pending_operations', 'pending_refunds', 'due_payouts', 'due_notifications'];

  it('shows each queue: what it holds, what is due and no worker holds, and how late the oldest is', async () => {
    const clock = new FakeClock(new Date());
    const own = await startTestGateway({ clock });
    try {
      const get = async () => (await own.gateway.server.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body;
      const empty = await get();
      for (const queue of QUEUES) {
        expect(sample(empty, 'acquiro_sweeper_queue_items', { queue }), queue).toBe(0);
        expect(sample(empty, 'acquiro_sweeper_queue_due', { queue }), queue).toBe(0);
        expect(sample(empty, 'acquiro_sweeper_queue_oldest_due_seconds', { queue }), queue).toBe(0);
      }

      // A manual-capture authorisation waits for its capture; its event waits for a worker (none runs here).
      const client = await own.merchant({ captureMode: 'manual' });
      const paid = await client.post('/v1/authorise', cardPayment(client.ids, { notify_url: 'http://127.0.0.1:9/hook' }));
      expect(paid.body.payment_status).toBe('2000');
      const held = await get();
      expect(sample(held, 'acquiro_sweeper_queue_items', { queue: 'expiring_authorisations' })).toBe(1);
      expect(sample(held, 'acquiro_sweeper_queue_due', { queue: 'expiring_authorisations' })).toBe(0);
      expect(sample(held, 'acquiro_sweeper_queue_due', { queue: 'due_notifications' })).toBe(1);

      // Nine days on, the authorisation is two days past the simulator's seven-day expiry.
      clock.advance(9 * 86_400_000);
      const late = await get();
      expect(sample(late, 'acquiro_sweeper_queue_due', { queue: 'expiring_authorisations' })).toBe(1);
      expect(sample(late, 'acquiro_sweeper_queue_oldest_due_seconds', { queue: 'expiring_authorisations' })).toBeCloseTo(2 * 86_400, -2);
      expect(sample(late, 'acquiro_notifications_oldest_due_seconds')).toBeCloseTo(9 * 86_400, -2);
      expect(sample(late, 'acquiro_sweeper_queue_oldest_due_seconds', { queue: 'due_notifications' })).toBeCloseTo(9 * 86_400, -2);
    } finally {
      await own.close();
    }
  });
});

describe('ACQUIRO_METRICS_ALLOW', () => {
  it('serves other blocks when told, and nothing when off', async () => {
    const open = await startTestGateway({ env: { ACQUIRO_METRICS_ALLOW: '10.0.0.0/8' } });
    const off = await startTestGateway({ env: { ACQUIRO_METRICS_ALLOW: 'off' } });
    try {
      const get = (gateway: TestGateway, remoteAddress: string) => gateway.gateway.server.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      expect((await get(open, '10.1.2.3')).statusCode).toBe(200);
      expect((await get(open, '127.0.0.1')).statusCode).toBe(403);
      expect((await get(off, '127.0.0.1')).statusCode).toBe(404);
    } finally {
      await open.close();
      await off.close();
    }
  });
});

describe('a scrape while the database is away', () => {
  it('still answers, with acquiro_database_up 0', async () => {
    const { openTestDatabase } = await import('../support/gateway.ts');
    const { createGateway } = await import('../../src/gateway.ts');
    const { loadConfig } = await import('../../src/config.ts');
    const { createLogger } = await import('../../src/logging.ts');
    const db = await openTestDatabase(2);
    const gateway = await createGateway({ config: loadConfig({}), database: db.database, log: createLogger('silent') });
    try {
      const get = () => gateway.server.app.inject({ method: 'GET', url: '/metrics' });
      expect(sample((await get()).body, 'acquiro_database_up')).toBe(1);
      await db.database.close();
      const away = await get();
      expect(away.statusCode).toBe(200);
      expect(sample(away.body, 'acquiro_database_up')).toBe(0);
      expect(away.body).toContain('acquiro_http_requests_total');
    } finally {
      await gateway.close();
      await db.drop().catch(() => {});
    }
  });
});
