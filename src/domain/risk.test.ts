import { describe, expect, it } from 'vitest';
import { assessRisk, DEFAULT_RISK_SETTINGS, riskSettingsFor } from './risk.ts';

const facts = { amount: { minor: 1000, currency: 'USD' }, velocity: { card: 0, email: 0, ip: 0 }, blocklistHits: [] };

describe('risk rules', () => {
  it('accepts a clean payment and lists every rule it evaluated', () => {
    const decision = assessRisk(facts, DEFAULT_RISK_SETTINGS);
    expect(decision).toMatchObject({ score: 0, action: 'accept' });
    expect(decision.reasons.map((r) => r.name)).toEqual(['blocklist', 'velocity_card', 'velocity_email', 'velocity_ip', 'amount_limit', 'country_mismatch']);
    expect(decision.reasons.find((r) => r.name === 'amount_limit')?.status).toBe('skipped');
  });

  it('rejects a blocklisted payment', () => {
    expect(assessRisk({ ...facts, blocklistHits: ['email'] }, DEFAULT_RISK_SETTINGS)).toMatchObject({ score: 100, action: 'reject' });
  });

  it('holds for review at the card velocity limit, not below it', () => {
    const limit = DEFAULT_RISK_SETTINGS.velocityCard.limit;
    expect(assessRisk({ ...facts, velocity: { card: limit - 1 } }, DEFAULT_RISK_SETTINGS).action).toBe('accept');
    expect(assessRisk({ ...facts, velocity: { card: limit } }, DEFAULT_RISK_SETTINGS).action).toBe('review');
  });

  it('applies per-currency amount limits in minor units', () => {
    const settings = riskSettingsFor({ amountLimits: { USD: { review: 50_000, reject: 100_000 } } });
    expect(assessRisk({ ...facts, amount: { minor: 50_000, currency: 'USD' } }, settings).action).toBe('accept');
    expect(assessRisk({ ...facts, amount: { minor: 50_001, currency: 'USD' } }, settings).action).toBe('review');
    expect(assessRisk({ ...facts, amount: { minor: 100_001, currency: 'USD' } }, settings).action).toBe('reject');
    expect(assessRisk({ ...facts, amount: { minor: 100_001, currency: 'EUR' } }, settings).action).toBe('accept');
  });

  it('scores a billing country that differs from the issuing country', () => {
    const decision = assessRisk({ ...facts, billingCountry: 'BR', issuerCountry: 'US' }, DEFAULT_RISK_SETTINGS);
    expect(decision).toMatchObject({ score: 30, action: 'accept' });
    expect(assessRisk({ ...facts, billingCountry: 'BR', issuerCountry: 'US' }, riskSettingsFor({ countryMismatchScore: 60 })).action).toBe('review');
  });

  it('merges account overrides over the defaults, field by field', () => {
    const settings = riskSettingsFor({ velocityCard: { limit: 3 }, unknown: 1 });
    expect(settings.velocityCard).toEqual({ limit: 3, score: DEFAULT_RISK_SETTINGS.velocityCard.score });
    expect(settings).not.toHaveProperty('unknown');
  });
});
