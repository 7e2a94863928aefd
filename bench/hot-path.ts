// How many authorisations shared each hot-path statement (src/db/coalesce.ts) during a phase: the
// server's from its /metrics counters (served to loopback by default), the raw phase's from the
// bench process's own coalescing. PostgreSQL's CPU per authorisation follows statements more than
// rows, so a phase whose statements carry fewer authorisations costs the database more each.
import type { Database } from '../src/db/client.ts';
import { hotPath } from '../src/db/repositories/payments.ts';

export interface HotPathCounts {
  readonly requests: number;
  readonly statements: number;
}

const COUNTER = /^acquiro_hot_path_(requests|statements)_total\{statement="(claim|outcome)"[^}]*\} (\d+)/gm;

/** Claims and outcomes written by the server so far, and the statements they went out in. */
export async function serverHotPath(url: string): Promise<HotPathCounts> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts = { requests: 0, statements: 0 };
  for (const [, kind, , value] of text.matchAll(COUNTER)) counts[kind as keyof HotPathCounts] += Number(value);
  return counts;
}

/** The same counts for the raw phases' own coalescing in this process. */
export function rawHotPath(database: Database): HotPathCounts {
  const { claim, outcome } = hotPath(database);
  return { requests: claim.stats.requests + outcome.stats.requests, statements: claim.stats.statements + outcome.stats.statements };
}

/** Authorisations' statements (claims and outcomes) per statement sent between two counts. */
export function perStatement(before: HotPathCounts, after: HotPathCounts): number {
  return (after.requests - before.requests) / Math.max(1, after.statements - before.statements);
}
