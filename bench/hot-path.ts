// How many authorisations shared each hot-path statement (src/db/coalesce.ts) during a phase, and
// how long they waited for it: the server's from its /metrics counters (served to loopback by
// default), the raw phase's from the bench process's own coalescing. PostgreSQL's CPU per
// authorisation follows statements more than rows, so a phase whose statements carry fewer
// authorisations costs the database more each.
import type { Database } from '../src/db/client.ts';
import { hotPath } from '../src/db/repositories/payments.ts';

export interface HotPathCounts {
  readonly requests: number;
  readonly statements: number;
  /** Seconds claims and outcomes waited for their statement to go, summed. */
  readonly waitSeconds: number;
  /** Seconds from their statement going to its answer reaching them, summed. */
  readonly answerSeconds: number;
}

const COUNTER = /^acquiro_hot_path_(requests|statements|wait_seconds|answer_seconds)_total\{statement="(claim|outcome)"[^}]*\} ([0-9.e+-]+)/gm;
const KEYS = { requests: 'requests', statements: 'statements', wait_seconds: 'waitSeconds', answer_seconds: 'answerSeconds' } as const;

/** Claims and outcomes written by the server so far, the statements they went out in, and their waits. */
export async function serverHotPath(url: string): Promise<HotPathCounts> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts = { requests: 0, statements: 0, waitSeconds: 0, answerSeconds: 0 };
  for (const [, kind, , value] of text.matchAll(COUNTER)) counts[KEYS[kind as keyof typeof KEYS]] += Number(value);
  return counts;
}

/** The same counts for the raw phases' own coalescing in this process. */
export function rawHotPath(database: Database): HotPathCounts {
  const { claim, outcome } = hotPath(database);
  const sum = (key: keyof HotPathCounts) => claim.stats[key] + outcome.stats[key];
  return { requests: sum('requests'), statements: sum('statements'), waitSeconds: sum('waitSeconds'), answerSeconds: sum('answerSeconds') };
}

/** Authorisations' statements (claims and outcomes) per statement sent between two counts. */
export function perStatement(before: HotPathCounts, after: HotPathCounts): number {
  return (after.requests - before.requests) / Math.max(1, after.statements - before.statements);
}

/** A claim's or outcome's mean wait, in ms, between two counts: for its statement to go, and then for the answer. */
export function meanWaits(before: HotPathCounts, after: HotPathCounts): { toGo: number; toAnswer: number } {
  const requests = Math.max(1, after.requests - before.requests);
  return { toGo: ((after.waitSeconds - before.waitSeconds) * 1000) / requests, toAnswer: ((after.answerSeconds - before.answerSeconds) * 1000) / requests };
}
