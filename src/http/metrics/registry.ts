// The gateway's Prometheus metrics (prom-client). One registry per server, so test gateways in one
// process never share counters. Request metrics are counted in an onResponse hook; backlogs and the
// pool are read when Prometheus scrapes (one statement), so nothing is written for them.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Deps } from '../../app/context.ts';
import { scheduleOf } from '../../connectors/port.ts';
import { readBacklog, type Backlog, type QueueName } from '../../db/repositories/backlog.ts';
import { hotPath } from '../../db/repositories/payments.ts';

export interface GatewayMetrics {
  readonly contentType: string;
  /** The metrics in Prometheus's text format, backlogs and pool read now. */
  scrape(): Promise<string>;
  /** Counts one answered request. `operation` is the operation's name, or the route's group. */
  observe(operation: string, status: number, seconds: number): void;
}

// Buckets around this gateway's latencies: a few milliseconds on the hot path, seconds for batches.
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];

const DAY_MS = 86_400_000;

/** A queue's label: `unknownPayments` → `unknown_payments`. */
const queueLabel = (name: QueueName) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Authorisations are due to expire from now less the shortest expiry of the registered connectors. */
function authorisationsDueBy(deps: Pick<Deps, 'connectors'>, now: Date): Date {
  const days = (deps.connectors.names?.() ?? []).map((name) => deps.connectors.get(name)).filter((c) => c !== undefined).map((c) => scheduleOf(c).authorisationExpiryDays);
  return days.length ? new Date(now.getTime() - Math.min(...days) * DAY_MS) : new Date(0);
}

export function createMetrics(deps: Pick<Deps, 'database' | 'clock' | 'connectors'>): GatewayMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'acquiro' });
  // Process CPU, memory, event-loop delay (nodejs_eventloop_lag_*), GC, handles.
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'acquiro_http_requests_total',
    help: 'Answered HTTP requests by operation and status code',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'acquiro_http_request_duration_seconds',
    help: 'Time from the request to its answer, by operation',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
  const perQueue = (name: string, help: string) => new Gauge({ name, help, labelNames: ['queue'] as const, registers: [registry] });
  const queueGauges = {
    items: perQueue('acquiro_sweeper_queue_items', 'Rows a sweeper queue holds, due or not'),
    due: perQueue('acquiro_sweeper_queue_due', 'Rows of a sweeper queue due now that no worker holds: its backlog'),
    oldestDueSeconds: perQueue('acquiro_sweeper_queue_oldest_due_seconds', 'How long past its due time the oldest row of that backlog has waited (business time)'),
  };
  const notificationsOldestDue = gauge('acquiro_notifications_oldest_due_seconds', 'How long past its due time the oldest notification attempt has waited');
  const databaseUp = gauge('acquiro_database_up', '1 when the database answered this scrape');
  const backlogGauges: Record<Exclude<keyof Backlog, 'queues'>, Gauge> = {
    notificationsPending: gauge('acquiro_notifications_pending', 'Events not yet delivered to their notify_url'),
    notificationsOldestSeconds: gauge('acquiro_notifications_oldest_age_seconds', 'Age of the oldest undelivered event'),
    paymentsUnknown: gauge('acquiro_payments_outcome_unknown', 'Payments waiting for the processor to say what became of them'),
    operationsPending: gauge('acquiro_operations_pending', 'Captures and cancels waiting on the processor'),
    refundsPending: gauge('acquiro_refunds_pending', 'Refunds waiting on the processor'),
    disputeReportsHeld: gauge('acquiro_dispute_reports_held', 'Dispute reports not yet placed against a payment, offered again with each poll'),
  };
  // PGlite has no pool: these are registered only where there is one.
  const poolGauges = deps.database.poolStats
    ? {
        total: gauge('acquiro_db_pool_connections', 'Open connections in the database pool'),
        inUse: gauge('acquiro_db_pool_in_use', 'Connections of the pool running a query or a transaction'),
        idle: gauge('acquiro_db_pool_idle', 'Idle connections in the database pool'),
        waiting: gauge('acquiro_db_pool_waiting', 'Queries waiting for a free connection'),
        max: gauge('acquiro_db_pool_max', 'Largest size of the database pool'),
      }
    : undefined;

  // The hot path's coalescing (src/db/coalesce.ts), counted in memory: requests, and the statements
  // they went out in. Their ratio is the statements per claim (or outcome) under this load; each of
  // the two sums of seconds over the requests is their mean wait for the event loop's turn, and for
  // the answer.
  const hot = hotPath(deps.database);
  const hotCounters = {
    requests: new Counter({ name: 'acquiro_hot_path_requests_total', help: 'Authorisation claims and outcomes written, by statement', labelNames: ['statement'] as const, registers: [registry] }),
    statements: new Counter({ name: 'acquiro_hot_path_statements_total', help: 'Statements those went out in (concurrent ones share one), by statement', labelNames: ['statement'] as const, registers: [registry] }),
    fallbacks: new Counter({ name: 'acquiro_hot_path_fallbacks_total', help: 'Shared statements the database refused, whose requests were sent again one at a time', labelNames: ['statement'] as const, registers: [registry] }),
    waitSeconds: new Counter({ name: 'acquiro_hot_path_wait_seconds_total', help: "Seconds claims and outcomes waited for their statement to go (the rest of the event loop's turn), summed, by statement", labelNames: ['statement'] as const, registers: [registry] }),
    answerSeconds: new Counter({ name: 'acquiro_hot_path_answer_seconds_total', help: 'Seconds from their statement going to its answer reaching them (the database, then the event loop), summed, by statement', labelNames: ['statement'] as const, registers: [registry] }),
  };
  const none = () => ({ requests: 0, statements: 0, fallbacks: 0, waitSeconds: 0, answerSeconds: 0 });
  const counted = { claim: none(), outcome: none() };
  const countHotPath = () => {
    for (const statement of ['claim', 'outcome'] as const) {
      for (const key of Object.keys(hotCounters) as (keyof typeof hotCounters)[]) {
        const now = hot[statement].stats[key];
        hotCounters[key].inc({ statement }, now - counted[statement][key]);
        counted[statement][key] = now;
      }
    }
  };

  return {
    contentType: registry.contentType,
    observe(operation, status, seconds) {
      requests.inc({ operation, status: String(status) });
      latency.observe({ operation }, seconds);
    },
    async scrape() {
      // One statement per scrape fills every backlog gauge; while the database is away the last
      // figures stay and acquiro_database_up says they are stale.
      try {
        const now = deps.clock.now();
        const backlog = await readBacklog(deps.database, now, authorisationsDueBy(deps, now));
        for (const key of Object.keys(backlogGauges) as (keyof typeof backlogGauges)[]) backlogGauges[key].set(backlog[key]);
        for (const [name, queue] of Object.entries(backlog.queues) as [QueueName, Backlog['queues'][QueueName]][]) {
          for (const key of Object.keys(queueGauges) as (keyof typeof queueGauges)[]) queueGauges[key].set({ queue: queueLabel(name) }, queue[key]);
        }
        notificationsOldestDue.set(backlog.queues.dueNotifications.oldestDueSeconds);
        databaseUp.set(1);
      } catch {
        databaseUp.set(0);
      }
      countHotPath();
      const stats = deps.database.poolStats?.();
      if (stats && poolGauges) {
        const figures = { ...stats, inUse: stats.total - stats.idle };
        for (const key of Object.keys(poolGauges) as (keyof typeof figures)[]) poolGauges[key].set(figures[key]);
      }
      return registry.metrics();
    },
  };
}

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  readonly max: number;
}
