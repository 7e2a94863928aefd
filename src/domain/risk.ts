// The risk rules engine: pure scoring over facts the authorise use case gathers (velocity counts,
// blocklist hits, countries). Each rule adds to a 0-100 score; thresholds turn it into an action.
// docs/risk.md lists the rules and their defaults; an account overrides them in risk_settings.
import type { Money } from './money.ts';

export type RiskAction = 'accept' | 'review' | 'reject';
export type RuleStatus = 'pass' | 'hit' | 'skipped';

export interface RiskReason {
  readonly name: string;
  readonly status: RuleStatus;
}

export interface RiskDecision {
  readonly score: number;
  readonly action: RiskAction;
  readonly reasons: readonly RiskReason[];
}

export interface VelocityRule {
  /** Payments seen in the window before this one at which the rule hits. */
  readonly limit: number;
  readonly score: number;
}

export interface RiskSettings {
  readonly reviewScore: number;
  readonly rejectScore: number;
  readonly velocityWindowSeconds: number;
  readonly velocityCard: VelocityRule;
  readonly velocityEmail: VelocityRule;
  readonly velocityIp: VelocityRule;
  /** Per currency, in minor units: above `review` the payment is held, above `reject` refused. */
  readonly amountLimits: Readonly<Record<string, { readonly review?: number; readonly reject?: number }>>;
  readonly countryMismatchScore: number;
  readonly blocklistScore: number;
}

/** The highest score: the weights of the rules that hit are added up to at most this. */
export const MAX_RISK_SCORE = 100;

export const DEFAULT_RISK_SETTINGS: RiskSettings = {
  reviewScore: 50,
  rejectScore: 80,
  velocityWindowSeconds: 3600,
  velocityCard: { limit: 20, score: 50 },
  velocityEmail: { limit: 50, score: 30 },
  velocityIp: { limit: 100, score: 30 },
  amountLimits: {},
  countryMismatchScore: 30,
  blocklistScore: 100,
};

export interface RiskFacts {
  readonly amount: Money;
  /** Previous payments in the velocity window; undefined when the rule does not apply. */
  readonly velocity: { readonly card?: number; readonly email?: number; readonly ip?: number };
  readonly blocklistHits: readonly string[];
  readonly billingCountry?: string;
  readonly issuerCountry?: string;
  /** The acquirer's verdict on this card, when it has one (the connector's cardFacts). */
  readonly sandboxCard?: { readonly name: string; readonly score: number };
}

export function assessRisk(facts: RiskFacts, settings: RiskSettings): RiskDecision {
  const reasons: RiskReason[] = [];
  let score = 0;
  const rule = (name: string, applies: boolean, hit: boolean, weight: number) => {
    reasons.push({ name, status: !applies ? 'skipped' : hit ? 'hit' : 'pass' });
    if (applies && hit) score += weight;
  };

  rule('blocklist', true, facts.blocklistHits.length > 0, settings.blocklistScore);
  const velocity = (name: string, count: number | undefined, limit: VelocityRule) =>
    rule(name, count !== undefined, (count ?? 0) >= limit.limit, limit.score);
  velocity('velocity_card', facts.velocity.card, settings.velocityCard);
  velocity('velocity_email', facts.velocity.email, settings.velocityEmail);
  velocity('velocity_ip', facts.velocity.ip, settings.velocityIp);

  const limits = settings.amountLimits[facts.amount.currency];
  const overReject = limits?.reject !== undefined && facts.amount.minor > limits.reject;
  const overReview = limits?.review !== undefined && facts.amount.minor > limits.review;
  rule(
    'amount_limit',
    limits !== undefined,
    overReject || overReview,
    overReject ? settings.rejectScore : settings.reviewScore,
  );

  // A sandbox risk test card is the acquirer's verdict on the card itself, which must keep its
  // meaning (decisions.md §5): the review card's 60 and a mismatch's 30 would reject it. Its
  // issuing country is not compared; every other card's is, test cards included.
  rule(
    'country_mismatch',
    facts.billingCountry !== undefined && facts.issuerCountry !== undefined && facts.sandboxCard === undefined,
    facts.billingCountry !== facts.issuerCountry,
    settings.countryMismatchScore,
  );

  if (facts.sandboxCard) rule(facts.sandboxCard.name, true, true, facts.sandboxCard.score);

  score = Math.min(MAX_RISK_SCORE, score);
  return { score, action: actionFor(score, settings), reasons };
}

/** What a payment scoring `score` (at most MAX_RISK_SCORE) gets: refused, held for review or accepted. */
export function actionFor(score: number, settings: Pick<RiskSettings, 'reviewScore' | 'rejectScore'>): RiskAction {
  return score >= settings.rejectScore ? 'reject' : score >= settings.reviewScore ? 'review' : 'accept';
}

/** Account overrides merged over the defaults; unknown keys are ignored. */
export function riskSettingsFor(overrides: Readonly<Record<string, unknown>>): RiskSettings {
  const merged: Record<string, unknown> = { ...DEFAULT_RISK_SETTINGS };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(key in DEFAULT_RISK_SETTINGS)) continue;
    const base = (DEFAULT_RISK_SETTINGS as unknown as Record<string, unknown>)[key];
    merged[key] = typeof base === 'object' && base !== null ? { ...base, ...(value as object) } : value;
  }
  return merged as unknown as RiskSettings;
}
